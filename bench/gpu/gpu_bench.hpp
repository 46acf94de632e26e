// GPU measurements behind `eigsolve bench symv` and `eigsolve tune symv` (bench/gpu/*.cu);
// the CLI side (options, tables, JSON) is bench/gpu/symv_tools.cpp. In a CPU-only build every
// function throws NotCompiled("cuda").
#pragma once

#include <string>
#include <vector>

#include "core/precision.hpp"
#include "solver/eigensolve.hpp"
#include "symv/symv_gpu.hpp"

namespace eigsolve {

/// One implementation measured at one size.
struct SymvImplResult {
  std::string
      impl;  ///< eigsolve-tuned | eigsolve-ticket | eigsolve-twopass | cublas | cublas-atomics
  std::string config;  ///< our configuration name (empty for cuBLAS)
  double ms = 0;       ///< median milliseconds per call (inputs rotated through > L2 bytes)
  int runs = 0;
  int distinct = 0;      ///< distinct results over `runs` calls on one input
  int bitwise_cpu = -1;  ///< -1 not checked, 0 differs from symv_reference, 1 equal
};

/// How bench symv and tune symv time a call (symv_bench.cu): true (the default) the device's work
/// alone, the stream held while the call is enqueued; false also the host's enqueueing of the
/// call's first kernel (every figure before session 64).
void set_symv_bench_device_timing(bool on);

/// How tune symv takes its calls, for the table's note (symv_bench.cu's header: tune order;
/// EIGSOLVE_SYMV_TUNE_ORDER and EIGSOLVE_SYMV_BENCH_MIN_COPIES): "taken configuration by
/// configuration: ..." by default. Throws UsageError on a malformed variable.
std::string symv_tune_method();

/// Name of the current device ("NVIDIA H200 (sm_90, 132 SMs)").
std::string gpu_description();

/// Measures our configurations `ours` (name -> config) and, for s/d/c/z when `vendor`,
/// cuBLAS ?symv/?hemv (default and CUBLAS_ATOMICS_ALLOWED) at order n.
/// check_cpu: compare every result of ours with symv_reference bitwise. lda_pad: the matrix's
/// leading dimension is n + lda_pad (ours and cuBLAS alike).
std::vector<SymvImplResult> bench_symv_size(
    Precision p, index_t n, int runs, bool check_cpu,
    const std::vector<std::pair<std::string, SymvConfig>>& ours, bool vendor, index_t lda_pad = 0);

/// The tridiagonalization's SYMV schedule: y = A(g:n, g:n) x for `samples` trailing orders
/// k = n, n - n/samples, ... (one n x n matrix, lda = n + lda_pad, consecutive calls as in the
/// real sweep, so L2 reuse counts); the Riemann sum over k = n..1 in ms.
/// impl: "eigsolve-tuned" or "cublas".
double sweep_symv(Precision p, index_t n, const std::string& impl, int samples, int runs,
                  index_t lda_pad = 0);

/// Median ms of every configuration at order n (the tuner's measurements).
std::vector<double> tune_symv_size(Precision p, index_t n, const std::vector<SymvConfig>& configs,
                                   int runs);

/// One implementation of the whole eigenvalue solve at one size (`eigsolve bench eig`).
struct EigImplResult {
  std::string impl;    ///< eigsolve | cusolver
  double seconds = 0;  ///< median
  int runs = 0;
  int distinct = 0;
  int bitwise_cpu = -1;            ///< -1 not checked
  double seconds_host_input = -1;  ///< eigsolve: one run from host memory, upload included
  bool host_input_same = true;     ///< ... and whether its eigenvalues equal the device runs'
  std::string api;                 ///< cusolver: "legacy" (?syevd) or "Xsyevd"
  double rel_diff_vendor = -1;     ///< eigsolve: max |w - w_cusolver| / max |w_cusolver|
  std::vector<double> w0;          ///< (internal) the first run's eigenvalues
};

/// Ours (eigensolve_device: matrix already on the device; also once from host memory) against
/// cuSOLVER ?syevd/?heevd (s/d/c/z) on one random Hermitian matrix of order n. host_input: also
/// time one solve from host memory; cusolver_api: auto | x | legacy; reduction: ours with
/// Reduction::one_stage or two_stage (solver/eigensolve.hpp); band: the two-stage reduction's
/// half-width (SolveOptions::band; the CPU check and the host-input run use the same options).
std::vector<EigImplResult> bench_eig_size(Precision p, index_t n, int runs, bool vectors,
                                          bool check_cpu, bool host_input,
                                          const std::string& cusolver_api,
                                          Reduction reduction = Reduction::one_stage,
                                          int band = 32);

}  // namespace eigsolve
