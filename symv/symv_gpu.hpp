// SYMV / HEMV on a CUDA device: the plan API (backend-neutral header, no CUDA includes).
//
// y := alpha * A * x + beta * y with the bits of symv_reference (docs/canonical-symv.md), for
// every configuration below. A, x, y and the workspace are device pointers; `stream` is a
// cudaStream_t passed as void* (nullptr = the default stream).
//
//   plan:  cfg = symv_select<T>(n, lda)          pure lookup in the tuning table (no timing)
//          bytes = symv_workspace_bytes<T>(n)    caller allocates once (for the largest n)
//          symv_workspace_init(ws, bytes, s)     once per workspace (zeroes the tickets)
//   run:   symv_gpu<T>(cfg, n, alpha, A, lda, x, incx, beta, y, incy, ws, bytes, s[, opt])
//          no allocation, no host synchronisation; async on `stream`.
//
// In a CPU-only build every entry point throws NotCompiled("cuda").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/precision.hpp"

namespace eigsolve {

/// How the tile partials are combined (both give the same bits).
enum class SymvVariant {
  /// One kernel: each 64x64 tile's partials go to the workspace; a per-row-panel atomic ticket
  /// counts them, and the block that draws the last ticket of a row panel adds its nt partials
  /// in the canonical tile order and writes y. No block ever waits for another.
  ticket,
  /// Two kernels: all tile partials to the workspace, then an ordered sum per row.
  twopass,
};

/// Cache policy of the matrix loads.
enum class SymvLoad {
  ldg = 0,  ///< read-only path (ld.global.nc)
  cg = 1,   ///< L2 only (ld.global.cg): leaves L1 to x and the partials
  cs = 2,   ///< streaming (ld.global.cs, evict first)
  /// cp.async of whole tiles into shared memory (two per group: the next one arrives while
  /// the current one is reduced); the chains then read shared memory
  staged = 3,
  /// coalesced loads (ld.global.cs, 512 contiguous bytes per warp load) handed to the threads
  /// of the 8x8 blocks through a small per-warp shared-memory buffer (symv/cuda/symv_xs.cuh)
  xs = 4,
};

/// One point of the tuning space. Every configuration gives the same bits.
struct SymvConfig {
  SymvVariant variant = SymvVariant::ticket;
  int tiles_per_block = 2;  ///< 1, 2 or 4: 64 threads per tile (8x8 blocks of the tile each)
  int blocks_per_sm = 4;    ///< persistent grid: blocks_per_sm * SMs blocks stride over tiles
  bool wide = true;         ///< 16-byte loads (staged: whole-element copies) where A and lda allow
  SymvLoad load = SymvLoad::ldg;
  /// float and double's two-pass 16-byte plain tile kernels (loads ldg, cg, cs): how many of an
  /// off-diagonal 8x8 block's columns are loaded at the end of the previous tile, 1 or 8 (name
  /// suffix "-e1", "-e8"); 0 (no suffix): the default rule, 8 for double and for float from
  /// n = 6144, 1 below (symv/cuda/symv_launch.cuh early_mode). No effect on other kernels and
  /// precisions; EIGSOLVE_GPU_SYMV_EARLY overrides it. The same loads: the same bits.
  int early = 0;

  std::string name() const;  ///< e.g. "ticket-t2-m4-w-ldg", "twopass-t4-m16-w-cs-e8"
  bool operator==(const SymvConfig& o) const {
    return variant == o.variant && tiles_per_block == o.tiles_per_block &&
           blocks_per_sm == o.blocks_per_sm && wide == o.wide && load == o.load && early == o.early;
  }
};

/// How one symv_gpu call runs; the bits are the same for every choice.
struct SymvRunOptions {
  /// The tiles are visited last to first (bottom-right corner first) instead of first to last.
  /// The tridiagonalization alternates it so that each sweep starts on the part of the trailing
  /// matrix the previous one read last, which is still in L2.
  bool reverse = false;
  /// For the tridiagonalization's own row-sum kernel: when non-null and the configuration is
  /// two-pass, symv_gpu launches the tile kernel only and copies the row-sum kernel's
  /// arguments (symv_cuda::SymvArgs<T>, symv/cuda/symv_kernels.cuh) here; y is then not
  /// written until the caller runs the row sums (householder/cuda/panel_fused_w.cuh).
  void* defer_rowsums = nullptr;
  /// Set by symv_gpu when non-null: whether it deferred the row sums.
  bool* rowsums_deferred = nullptr;
};

/// Parses SymvConfig::name(); throws UsageError.
SymvConfig parse_symv_config(const std::string& name);

/// The configurations without an early-column count (240; every precision's kernels).
std::vector<SymvConfig> symv_config_space();

/// The tuning space `eigsolve tune symv` searches for `precision` (s, d, c, z, dd): for s and d,
/// symv_config_space() with each two-pass 16-byte configuration with ldg or cs loads replaced by
/// its "-e1" and "-e8" forms (270 configurations), so that the table, not a fixed rule, says
/// where the early columns pay; for c, z and dd, symv_config_space() (early has no effect there).
std::vector<SymvConfig> symv_tune_space(const std::string& precision);

/// The configuration for order n on the current device: the checked-in tuning table for its
/// architecture when there is one (symv/cuda/tables/), else a safe default. Same bits either way.
template <class T>
SymvConfig symv_select(index_t n);

/// The configuration used where no table has an entry (safe on every GPU; same bits).
SymvConfig symv_default_config();

/// symv_select for a matrix with leading dimension lda. Where lda * sizeof(T) is not a multiple
/// of 16 bytes, every other column (s: 3 of 4) is off a 16-byte line, so no `w` configuration
/// can take its 16-byte loads (it runs its narrow form, measured up to 2x slower than the best
/// `n` configuration: c at 16384, H200 table); the choice is then among the `n` configurations.
/// Same bits whatever is chosen.
template <class T>
SymvConfig symv_select(index_t n, index_t lda);

/// The lookup behind symv_select for precision name p ("s", "d", "c", "z", "dd"), order n and
/// compute capability arch (e.g. 90); the default when the build holds no table for arch.
/// narrow_only: only the configurations without 16-byte loads (`n`), where the table has any.
SymvConfig symv_select_for(const std::string& p, index_t n, int arch, bool narrow_only = false);

/// Workspace bytes symv_gpu needs for order n (every configuration; monotone in n).
template <class T>
std::size_t symv_workspace_bytes(index_t n);

/// Zeroes the tickets of a fresh workspace (symv_gpu leaves them zero after every call).
void symv_workspace_init(void* workspace, std::size_t bytes, void* stream);

/// y := alpha A x + beta y, A Hermitian of order n in the lower triangle of A (device, lda >= n),
/// x(i) = x[i*incx], y(i) = y[i*incy] (BLAS meaning for negative increments); beta == 0: y is
/// not read. Throws DimensionError on bad arguments, DeviceError on a launch failure.
/// opt: how the call runs (never what it computes: same bits for every choice).
template <class T>
void symv_gpu(const SymvConfig& cfg, index_t n, T alpha, const T* A, index_t lda, const T* x,
              index_t incx, T beta, T* y, index_t incy, void* workspace, std::size_t ws_bytes,
              void* stream, const SymvRunOptions& opt = {});

}  // namespace eigsolve
