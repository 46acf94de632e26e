// The device side of the tridiagonalization (householder/tridiag_cuda.hpp): the matrix resident
// on the GPU, the canonical SYMV of symv/cuda for every column, the panel steps of
// householder/cuda/panel_fused.cuh (or, with EIGSOLVE_GPU_FUSED=0, the step-by-step kernels of
// panel_kernels.cuh) and the canonical rank-2k trailing update (panel_kernels.cuh).
//
//   per panel (j0, nb), one stream, captured as a CUDA graph and replayed (EIGSOLVE_GPU_GRAPHS=0:
//   plain launches), every kernel after the first with programmatic dependent launch
//   (EIGSOLVE_GPU_PDL=0: without):
//     for each column: K1 colupd, K2 sumsq, K3 finish, SYMV | K4 dots (second stream,
//                      EIGSOLVE_GPU_FORK=0: after the SYMV), K5 w+alpha
//     K1 (pending axpy only), rank-2k update (s, d, c: 8x4 elements per thread, z: 4x4 at 2
//     blocks per SM; EIGSOLVE_GPU_RANK2K=0: 4x4 unbounded as dd; same bits), panel finish
//   EIGSOLVE_GPU_COOP=1: K5 of column i-1 and K1-K3 of column i as one cooperative kernel with
//   grid-wide barriers (householder/cuda/panel_coop.cuh; measured 1-5 % slower than the
//   separate kernels with PDL in a graph, so off by default).
//   EIGSOLVE_GPU_PROFILE=1: events around every step, one line of per-step seconds on stderr.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/staged_copy.cuh"
#include "core/env_flag.hpp"
#include "core/errors.hpp"
#include "householder/tridiag_cuda.hpp"
#include "core/cuda/pdl_launch.cuh"
#include "symv/symv_gpu.hpp"

namespace eigsolve {
namespace {

void ck(cudaError_t st, const char* what) {
  if (st != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(std::string(what) + ": " + cudaGetErrorString(st));
  }
}

}  // namespace
}  // namespace eigsolve

#include "householder/cuda/panel_coop.cuh"  // includes panel_fused*.cuh, panel_kernels.cuh
#include "householder/cuda/panel_fused_k12.cuh"

namespace eigsolve {
namespace {

using namespace tridiag_cuda;
namespace panel_fused = tridiag_cuda::panel_fused;

/// Per-step device time of the panel loop (EIGSOLVE_GPU_PROFILE=1): events around every step,
/// one synchronisation per column. For measurements only; it slows the loop down.
struct PanelProfile {
  static constexpr int kSteps = 8;
  static constexpr const char* kNames[kSteps] = {"col_update", "larfg", "symv",   "dots",
                                                 "panel_w",    "alpha", "rank2k", "finish"};
  double sec[kSteps] = {};
};

/// The device matrix's leading dimension is a multiple of this many elements (16 bytes).
template <class T>
constexpr index_t kLdMulOf = sizeof(T) >= 16 ? 1 : index_t(16 / sizeof(T));

template <class T>
class CudaTridiag final : public CudaTridiagDevice<T> {
 public:
  /// From host memory (host != nullptr) or from device memory (dsrc, ldd_src) on the current
  /// device; the lower triangle is copied into the solver's own storage either way.
  CudaTridiag(index_t n, const T* host, index_t lda, const T* dsrc, int nb,
              TridiagDeviceTimes* times, bool device_panels)
      : n_(n),
        nb_(std::max(1, nb)),
        // columns 16 bytes apart (a multiple of 16 / sizeof(T) elements): the SYMV's 16-byte
        // loads, shifted where a trailing matrix does not start on a 16-byte line
        ldd_((std::max<index_t>(n, 1) + kLdMulOf<T> - 1) / kLdMulOf<T> * kLdMulOf<T>),
        times_(times),
        device_panels_(device_panels) {
    if (cuda_device_count() == 0) throw DeviceError("--device cuda: no CUDA device is visible");
    const std::uint64_t need = tridiag_device_bytes<T>(n, nb);
    std::size_t free_b = 0, total_b = 0;
    ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    require_device_memory(
        "this problem: order " + std::to_string(n) + " in " + ScalarTraits<T>::name, need, free_b,
        total_b);
    profile_ = env_flag("EIGSOLVE_GPU_PROFILE", false);
    pdl_ = env_flag("EIGSOLVE_GPU_PDL", true);
    fused_ = env_flag("EIGSOLVE_GPU_FUSED", true);
    graphs_ = env_flag("EIGSOLVE_GPU_GRAPHS", true) && !profile_;  // events cannot be captured
    fork_ = env_flag("EIGSOLVE_GPU_FORK", true) && !profile_;
    alt_ = env_flag("EIGSOLVE_GPU_SYMV_ALT", true);
    coop_ = env_flag("EIGSOLVE_GPU_COOP", false) && fused_;  // measured slower: bench/NOTES.md
    wide_r2k_ = env_flag("EIGSOLVE_GPU_RANK2K", true);
    r2k_bound_ = env_flag("EIGSOLVE_GPU_R2K_BOUND", true);
    async_r2k_ = env_flag("EIGSOLVE_GPU_RANK2K_ASYNC", true);
    vec_r2k_ = env_flag("EIGSOLVE_GPU_RANK2K_VEC", true);
    rows_w_ = env_flag("EIGSOLVE_GPU_ROWS_W", true);
    k12_ = env_flag("EIGSOLVE_GPU_K12", false);  // opt-in: ~0.5 % (bench/NOTES.md, session 14)
    if (coop_) {  // the cooperative column kernel's grid must fit on the GPU at once
      int dev = 0, sms = 0, per_sm = 0;
      ck(cudaGetDevice(&dev), "cudaGetDevice");
      ck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count");
      ck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, panel_fused::column_coop_kernel<T>,
                                                       panel_fused::kRows,
                                                       std::size_t(2 * nb_) * sizeof(T)),
         "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
      coop_cap_ = index_t(sms) * per_sm;
      // EIGSOLVE_GPU_COOP_BLOCKS=N: at most N blocks (tests: blocks stride over several slices)
      if (const char* cb = std::getenv("EIGSOLVE_GPU_COOP_BLOCKS"); cb && *cb)
        coop_cap_ = std::min<index_t>(coop_cap_, std::max(1, std::atoi(cb)));
      coop_ = coop_cap_ > 0;
    }
    ck(cudaStreamCreateWithFlags(&st_, cudaStreamNonBlocking), "cudaStreamCreate");
    ck(cudaStreamCreateWithFlags(&st2_, cudaStreamNonBlocking), "cudaStreamCreate");
    ck(cudaEventCreateWithFlags(&ev_fork_, cudaEventDisableTiming), "cudaEventCreate");
    ck(cudaEventCreateWithFlags(&ev_join_, cudaEventDisableTiming), "cudaEventCreate");
    ck(cudaEventCreate(&ev0_), "cudaEventCreate");
    ck(cudaEventCreate(&ev1_), "cudaEventCreate");
    if (profile_)
      for (auto& e : pev_)
        ck(cudaEventCreate(&e), "cudaEventCreate");
    alloc(&dA_, std::size_t(ldd_) * std::size_t(n) * sizeof(T));
    wsb_ = symv_workspace_bytes<T>(std::max<index_t>(n, 1));
    alloc(&ws_, wsb_);
    const std::size_t panel = std::size_t(n) * std::size_t(nb_) * sizeof(T);
    alloc(&dV_, panel);
    alloc(&dW_, panel);
    alloc(&dv_, std::size_t(n) * sizeof(T));
    alloc(&dw_, std::size_t(n) * sizeof(T));
    alloc(&dmax_, sizeof(unsigned long long));
    if (!device_panels_) {
      ck(cudaMallocHost(&hV_, panel), "cudaMallocHost");
      ck(cudaMallocHost(&hW_, panel), "cudaMallocHost");
      ck(cudaMallocHost(&hv_, std::size_t(n) * sizeof(T)), "cudaMallocHost");
      ck(cudaMallocHost(&hw_, std::size_t(n) * sizeof(T)), "cudaMallocHost");
    }
    symv_workspace_init(ws_, wsb_, st_);
    const auto t0 = std::chrono::steady_clock::now();
    if (n > 0) {
      if (host)
        ck(cudaMemcpy2DAsync(dA_, ldd_ * sizeof(T), host, lda * sizeof(T), n * sizeof(T), n,
                             cudaMemcpyHostToDevice, st_),
           "upload A");
      else
        ck(cudaMemcpy2DAsync(dA_, ldd_ * sizeof(T), dsrc, lda * sizeof(T), n * sizeof(T), n,
                             cudaMemcpyDeviceToDevice, st_),
           "copy A");
    }
    ck(cudaStreamSynchronize(st_), "upload A");
    if (times_)
      times_->upload +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  ~CudaTridiag() override {
    cudaStreamSynchronize(st_);
    if (profile_ && times_) {  // the report's "of which SYMV / rank-2k"
      times_->symv += prof_.sec[2];
      times_->update += prof_.sec[6];
    }
    if (profile_ && prof_.sec[2] + prof_.sec[6] > 0) {
      std::fprintf(stderr,
                   "eigsolve gpu profile (n = %lld, %s, PDL %s):", static_cast<long long>(n_),
                   ScalarTraits<T>::name, "off: profiling serialises the steps");
      for (int k = 0; k < PanelProfile::kSteps; ++k)
        std::fprintf(stderr, " %s %.4f s", PanelProfile::kNames[k], prof_.sec[k]);
      std::fprintf(stderr, "\n");
    }
    for (void* p : {static_cast<void*>(dA_), ws_, static_cast<void*>(dV_), static_cast<void*>(dW_),
                    static_cast<void*>(dv_), static_cast<void*>(dw_), static_cast<void*>(dd_),
                    static_cast<void*>(de_), static_cast<void*>(dtau_), static_cast<void*>(dt_),
                    static_cast<void*>(dmax_), static_cast<void*>(slots_),
                    static_cast<void*>(sqpart_), static_cast<void*>(alpha_save_),
                    static_cast<void*>(apart_), static_cast<void*>(slots_min_)})
      cudaFree(p);
    for (void* p : {static_cast<void*>(hV_), static_cast<void*>(hW_), static_cast<void*>(hv_),
                    static_cast<void*>(hw_)})
      cudaFreeHost(p);
    for (auto& e : pev_)
      if (e) cudaEventDestroy(e);
    if (gexec_) cudaGraphExecDestroy(gexec_);
    if (std::getenv("EIGSOLVE_GPU_GRAPH_STATS") && instantiations_ > 0)
      std::fprintf(stderr, "eigsolve gpu: %ld graph instantiations for order %lld\n",
                   instantiations_, static_cast<long long>(n_));
    cudaEventDestroy(ev0_);
    cudaEventDestroy(ev1_);
    cudaEventDestroy(ev_fork_);
    cudaEventDestroy(ev_join_);
    cudaStreamSynchronize(st2_);
    cudaStreamDestroy(st2_);
    cudaStreamDestroy(st_);
  }

  double lower_absmax() override {
    if (n_ == 0) return 0;
    ck(cudaMemsetAsync(dmax_, 0, sizeof(unsigned long long), st_), "cudaMemset");
    const index_t total = n_ * n_;
    const unsigned blocks = unsigned(std::min<index_t>((total + 255) / 256, 132 * 16));
    lower_absmax_kernel<T><<<blocks, 256, 0, st_>>>(n_, dA_, ldd_, dmax_);
    ck(cudaGetLastError(), "lower_absmax_kernel");
    unsigned long long bits = 0;
    ck(cudaMemcpyAsync(&bits, dmax_, sizeof(bits), cudaMemcpyDeviceToHost, st_), "absmax");
    ck(cudaStreamSynchronize(st_), "absmax");
    double a = 0;
    std::memcpy(&a, &bits, sizeof(a));
    return a;
  }

  void scale_lower(int k) override {
    if (n_ == 0 || k == 0) return;
    const index_t total = n_ * n_;
    const unsigned blocks = unsigned(std::min<index_t>((total + 255) / 256, 132 * 16));
    scale_lower_kernel<T><<<blocks, 256, 0, st_>>>(n_, dA_, ldd_, k);
    ck(cudaGetLastError(), "scale_lower_kernel");
    ck(cudaStreamSynchronize(st_), "scale_lower_kernel");
  }

  void fetch_panel(index_t j0, index_t nb, T* A, index_t lda) override {
    copy_down(j0, j0, n_ - j0, nb, A, lda);
  }

  void symv(index_t g0, index_t m, const T* v, T* w) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(hv_, v, std::size_t(m) * sizeof(T));
    ck(cudaMemcpyAsync(dv_, hv_, std::size_t(m) * sizeof(T), cudaMemcpyHostToDevice, st_), "v");
    ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    symv_gpu<T>(symv_select<T>(m, ldd_), m, T(1), dA_ + g0 + ldd_ * g0, ldd_, dv_, 1, T(0), dw_, 1,
                ws_, wsb_, st_);
    ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
    ck(cudaMemcpyAsync(hw_, dw_, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost, st_), "w");
    ck(cudaStreamSynchronize(st_), "symv");
    std::memcpy(w, hw_, std::size_t(m) * sizeof(T));
    if (times_) {
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, ev0_, ev1_), "cudaEventElapsedTime");
      times_->symv += ms * 1e-3;
      times_->transfers +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - ms * 1e-3;
    }
  }

  void update(index_t s, index_t m, index_t kb, const T* V, index_t ldv, const T* W,
              index_t ldw) override {
    if (m <= 0 || kb <= 0) return;
    for (index_t k = 0; k < kb; ++k) {
      std::memcpy(hV_ + m * k, V + ldv * k, std::size_t(m) * sizeof(T));
      std::memcpy(hW_ + m * k, W + ldw * k, std::size_t(m) * sizeof(T));
    }
    const std::size_t bytes = std::size_t(m) * std::size_t(kb) * sizeof(T);
    ck(cudaMemcpyAsync(dV_, hV_, bytes, cudaMemcpyHostToDevice, st_), "V");
    ck(cudaMemcpyAsync(dW_, hW_, bytes, cudaMemcpyHostToDevice, st_), "W");
    ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    rank2k(m, kb, dV_, m, dW_, m, dA_ + s + ldd_ * s, false, false);
    ck(cudaGetLastError(), "rank2k_kernel");
    ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
    ck(cudaStreamSynchronize(st_), "rank2k_kernel");
    if (times_) {
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, ev0_, ev1_), "cudaEventElapsedTime");
      times_->update += ms * 1e-3;
    }
  }

  void fetch_tail(index_t j0, T* A, index_t lda) override {
    tail_j0_ = j0;
    copy_down(j0, j0, n_ - j0, n_ - j0, A, lda);
  }

  const T* device_reflectors(const T* A, index_t lda, index_t* ldd) override {
    // Device panels: columns [0, tail_j0_) are the device's own; host panels: none is.
    const index_t j0 = device_panels_ ? std::min(tail_j0_, n_) : 0;
    if (n_ - j0 > 0)
      ck(cudaMemcpy2DAsync(dA_ + j0 + ldd_ * j0, ldd_ * sizeof(T), A + j0 + lda * j0,
                           lda * sizeof(T), (n_ - j0) * sizeof(T), n_ - j0, cudaMemcpyHostToDevice,
                           st_),
         "upload the tail's reflectors");
    ck(cudaStreamSynchronize(st_), "upload the tail's reflectors");
    *ldd = ldd_;
    return dA_;
  }

  bool device_panels() const override { return device_panels_; }

  void device_panel(index_t j0, index_t nb) override {
    using R = real_t<T>;
    if (!dd_) {
      alloc(&dd_, std::size_t(n_) * sizeof(R));
      alloc(&de_, std::size_t(n_) * sizeof(R));
      alloc(&dtau_, std::size_t(n_) * sizeof(T));
      alloc(&dt_, std::size_t(2 * nb_) * sizeof(T));
      ck(cudaMemsetAsync(de_, 0, std::size_t(n_) * sizeof(R), st_), "cudaMemset");
      ck(cudaMemsetAsync(dtau_, 0, std::size_t(n_) * sizeof(T), st_), "cudaMemset");
      if (fused_) {
        const std::size_t tiles = std::size_t((n_ + kTile - 1) / kTile) + 1;
        alloc(&slots_,
              (std::size_t((n_ + panel_fused::kRows - 1) / panel_fused::kRows) + 1) * sizeof(R));
        alloc(&alpha_save_, std::size_t(n_) * sizeof(T));
        alloc(&sqpart_, tiles * sizeof(R));
        alloc(&apart_, tiles * kChunk * sizeof(T));  // chunk partials, 8 per tile
        alloc(&slots_min_,
              (std::size_t((n_ + panel_fused::kRows - 1) / panel_fused::kRows) + 1) * sizeof(R));
      }
      sel_.assign(std::size_t(n_) + 1, SymvConfig{});
      sel_ok_.assign(std::size_t(n_) + 1, 0);
      ck(cudaEventRecord(ev0_, st_), "cudaEventRecord");
    }
    T* W = dW_;  // n x nb, ld n
    const index_t ldw = n_;
    if (fused_ && graphs_) {
      graph_panel(j0, nb);
      return;
    }
    if (fused_) {
      fused_panel(j0, nb);
      return;
    }
    for (index_t i = 0; i < nb; ++i) {
      const index_t g = j0 + i, m = n_ - g - 1, rows = n_ - g;
      mark(0);
      launch(col_update_kernel<T>, unsigned((rows + 255) / 256), 256, n_, g, j0, i, dA_, ldd_,
             static_cast<const T*>(W), ldw);
      mark(1);
      launch(larfg_kernel<T>, 1, 1024, n_, g, dA_, ldd_, de_, dtau_);
      mark(2);
      column_symv(g, i);
      mark(3);
      if (i > 0)
        launch(panel_dots_kernel<T>, unsigned(2 * i), kDotThreads, m, g, j0, i,
               static_cast<const T*>(dA_), ldd_, static_cast<const T*>(W), ldw, dt_);
      mark(4);
      launch(panel_w_kernel<T>, unsigned((m + 255) / 256), 256, m, g, j0, i,
             static_cast<const T*>(dA_), ldd_, W, ldw, static_cast<const T*>(dt_),
             static_cast<const T*>(dtau_));
      mark(5);
      launch(panel_alpha_kernel<T>, 1, 1024, m, g, i, static_cast<const T*>(dA_), ldd_, W, ldw,
             static_cast<const T*>(dtau_));
      mark(6);
      ck(cudaGetLastError(), "device panel kernels");
      end_column();
    }
    mark(6);
    panel_update(j0, nb);
  }

  /// The fused panel captured as one CUDA graph and replayed (a kernel node costs about a
  /// quarter of a dependent stream launch). Consecutive panels have the same shape, so the
  /// executable graph is updated in place; a panel whose shape differs (another SYMV
  /// variant) gets a fresh one. Same kernels, same arguments: same bits.
  void graph_panel(index_t j0, index_t nb) {
    ck(cudaStreamBeginCapture(st_, cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      fused_panel(j0, nb);
    } catch (...) {
      cudaStreamEndCapture(st_, &graph);
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    ck(cudaStreamEndCapture(st_, &graph), "cudaStreamEndCapture");
    bool updated = false;
    if (gexec_) {
      cudaGraphExecUpdateResultInfo info;
      updated = cudaGraphExecUpdate(gexec_, graph, &info) == cudaSuccess;
      if (!updated) {
        cudaGetLastError();
        cudaGraphExecDestroy(gexec_);
        gexec_ = nullptr;
      }
    }
    if (!updated) {
      const cudaError_t st = cudaGraphInstantiate(&gexec_, graph, 0);
      if (st != cudaSuccess) {
        cudaGraphDestroy(graph);
        ck(st, "cudaGraphInstantiate");
      }
      ++instantiations_;
    }
    cudaGraphDestroy(graph);
    ck(cudaGraphLaunch(gexec_, st_), "cudaGraphLaunch");
  }

  /// The panel with the fused kernels (householder/cuda/panel_fused.cuh).
  void fused_panel(index_t j0, index_t nb) {
    using R = real_t<T>;
    namespace pf = panel_fused;
    T* W = dW_;
    const index_t ldw = n_;
    const auto blocks = [](index_t work, index_t per) {
      return unsigned(std::max<index_t>(1, (work + per - 1) / per));
    };
    for (index_t i = 0; i < nb; ++i) {
      const index_t g = j0 + i, m = n_ - g - 1, rows = n_ - g, nx = m - 1;
      const index_t ns = blocks(rows, pf::kRows);
      const index_t ntl = nx > 0 ? (nx + kTile - 1) / kTile : 0;
      mark(0);
      if (coop_) {  // [K5 of column i-1] K1 K2 K3 in one cooperative kernel
        launch_coop(g, j0, i, i > 0, true);
        mark(1);
      } else if (k12()) {  // K1 with K2's partials unscaled, then K3' (panel_fused_k12.cuh)
        if constexpr (!std::is_same_v<T, dd_real>) {
          const index_t ns12 = blocks(nx, pf::kRows);
          launch_smem(pf::colupd_sq_kernel<T>, unsigned(ns12), pf::kRows12,
                      std::size_t(2 * i) * sizeof(T), n_, g, j0, i, dA_, ldd_, W, ldw,
                      static_cast<const T*>(dtau_), static_cast<const T*>(apart_), slots_,
                      slots_min_, alpha_save_, sqpart_);
          mark(1);
          launch(pf::finish_sq_kernel<T>, blocks(nx, index_t(pf::kRows) * pf::kScalePerThread),
                 pf::kRows, n_, g, dA_, ldd_, de_, dtau_, static_cast<const R*>(slots_),
                 static_cast<const R*>(slots_min_), ns12, static_cast<const T*>(alpha_save_),
                 static_cast<const R*>(sqpart_));
        }
      } else {
        launch_smem(pf::colupd_kernel<T>, unsigned(ns), pf::kRows, std::size_t(2 * i) * sizeof(T),
                    n_, g, j0, i, dA_, ldd_, W, ldw, static_cast<const T*>(dtau_),
                    static_cast<const T*>(apart_), slots_, alpha_save_, true);
        mark(1);
        launch(pf::sumsq_kernel<T>, blocks(ntl, pf::kTilesK2), pf::kRows, n_, g,
               static_cast<const T*>(dA_), ldd_, static_cast<const R*>(slots_), ns,
               static_cast<const T*>(alpha_save_), sqpart_);
        launch(pf::larfg_finish_kernel<T>, blocks(nx, index_t(pf::kRows) * pf::kScalePerThread),
               pf::kRows, n_, g, dA_, ldd_, de_, dtau_, static_cast<const R*>(slots_), ns,
               static_cast<const T*>(alpha_save_), static_cast<const R*>(sqpart_));
      }
      mark(2);
      // The dots need v and the earlier columns of V and W, not the SYMV's result: with
      // EIGSOLVE_GPU_FORK (default) they run on a second stream beside the SYMV.
      const bool fork = fork_ && i > 0;
      if (fork) {
        ck(cudaEventRecord(ev_fork_, st_), "cudaEventRecord");
        ck(cudaStreamWaitEvent(st2_, ev_fork_, 0), "cudaStreamWaitEvent");
        panel_dots_kernel<T><<<unsigned(2 * i), kDotThreads, 0, st2_>>>(
            m, g, j0, i, static_cast<const T*>(dA_), ldd_, static_cast<const T*>(W), ldw, dt_);
        ck(cudaGetLastError(), "panel_dots_kernel");
        ck(cudaEventRecord(ev_join_, st2_), "cudaEventRecord");
      }
      // K45 (the SYMV's row sums with K5) where the SYMV is two-pass; not in the cooperative
      // form, whose next kernel runs K5
      const bool try_k45 = rows_w_ && !coop_ && i <= kTile;
      symv_cuda::SymvArgs<T> rs{};
      bool k45 = false;
      column_symv(g, i, try_k45 ? &rs : nullptr, &k45);
      mark(3);
      if (fork)
        ck(cudaStreamWaitEvent(st_, ev_join_, 0), "cudaStreamWaitEvent");
      else if (i > 0)
        launch(panel_dots_kernel<T>, unsigned(2 * i), kDotThreads, m, g, j0, i,
               static_cast<const T*>(dA_), ldd_, static_cast<const T*>(W), ldw, dt_);
      mark(4);
      if (k45)
        launch_smem(
            pf::rowsums_w_kernel<T>, blocks(m, symv_cuda::kSumRows), symv_cuda::kSumThreads,
            std::size_t(2 * i) * sizeof(T), rs,
            pf::RowsWArgs<T>{m, g, j0, i, static_cast<const T*>(dA_), ldd_, W, ldw,
                             static_cast<const T*>(dt_), static_cast<const T*>(dtau_), apart_});
      else if (!coop_)  // else: in the next cooperative kernel
        launch_smem(pf::panel_w_alpha_kernel<T>, blocks(m, pf::kRows), pf::kRows,
                    std::size_t(2 * i) * sizeof(T), m, g, j0, i, static_cast<const T*>(dA_), ldd_,
                    W, ldw, static_cast<const T*>(dt_), static_cast<const T*>(dtau_), apart_);
      mark(5);
      mark(6);
      ck(cudaGetLastError(), "device panel kernels");
      end_column();
    }
    const index_t s = j0 + nb, m = n_ - s;
    mark(6);
    // [the last column's K5,] its pending w += alpha v, then the trailing update
    if (coop_)
      launch_coop(s, j0, nb, true, false);
    else
      launch_smem(pf::colupd_kernel<T>, blocks(m, pf::kRows), pf::kRows, 0, n_, s, j0, nb, dA_,
                  ldd_, W, ldw, static_cast<const T*>(dtau_), static_cast<const T*>(apart_), slots_,
                  alpha_save_, false);
    panel_update(j0, nb);
  }

  void fetch_panels(index_t j0, T* A, index_t lda, real_t<T>* d, real_t<T>* e, T* tau,
                    bool reflectors) override {
    using R = real_t<T>;
    if (dd_) {
      ck(cudaEventRecord(ev1_, st_), "cudaEventRecord");
      ck(cudaEventSynchronize(ev1_), "device panels");
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, ev0_, ev1_), "cudaEventElapsedTime");
      if (times_) times_->panels += ms * 1e-3;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (reflectors)
      copy_down(0, 0, n_, n_, A, lda);  // the panels' reflectors and the trailing block
    else
      copy_down(j0, j0, n_ - j0, n_ - j0, A, lda);  // the trailing block only
    if (j0 > 0 && dd_) {
      ck(cudaMemcpyAsync(d, dd_, std::size_t(j0) * sizeof(R), cudaMemcpyDeviceToHost, st_), "d");
      ck(cudaMemcpyAsync(e, de_, std::size_t(j0) * sizeof(R), cudaMemcpyDeviceToHost, st_), "e");
      ck(cudaMemcpyAsync(tau, dtau_, std::size_t(j0) * sizeof(T), cudaMemcpyDeviceToHost, st_),
         "tau");
      ck(cudaStreamSynchronize(st_), "fetch panels");
    }
    if (times_)
      times_->transfers +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  template <class P>
  void alloc(P** p, std::size_t bytes) {
    ck(cudaMalloc(reinterpret_cast<void**>(p), std::max<std::size_t>(bytes, 1)), "cudaMalloc");
  }
  void copy_down(index_t r0, index_t c0, index_t rows, index_t cols, T* A, index_t lda) {
    if (rows <= 0 || cols <= 0) return;
    // Blocks of 1 MiB or more go through pinned chunks and host threads (core/cuda/
    // staged_copy.cuh; EIGSOLVE_GPU_STAGED_FETCH=0: the plain copy). A host buffer that was never
    // touched (the reflectors of eigensolve_device with vectors on the host route: 2 GB at d
    // 16384) then takes its page faults on 16 threads instead of inside the driver's
    // single-threaded pageable copy: bench eig --vectors d 16384 6.45 -> 5.03 s (H200, session 7).
    const char* sf = std::getenv("EIGSOLVE_GPU_STAGED_FETCH");
    if (!(sf && sf[0] == '0' && sf[1] == '\0') &&
        std::size_t(rows) * std::size_t(cols) * sizeof(T) >= (std::size_t(1) << 20)) {
      ck(cudaStreamSynchronize(st_), "fetch columns");
      staged::Stager sg(0, std::size_t(rows) * std::size_t(cols) * sizeof(T));
      sg.d2h(A + r0 + lda * c0, std::size_t(lda) * sizeof(T), dA_ + r0 + ldd_ * c0,
             std::size_t(ldd_) * sizeof(T), std::size_t(rows) * sizeof(T), std::size_t(cols));
      return;
    }
    ck(cudaMemcpy2DAsync(A + r0 + lda * c0, lda * sizeof(T), dA_ + r0 + ldd_ * c0, ldd_ * sizeof(T),
                         rows * sizeof(T), cols, cudaMemcpyDeviceToHost, st_),
       "fetch columns");
    ck(cudaStreamSynchronize(st_), "fetch columns");
  }
  /// The direction of the next sweep over the trailing matrix (a SYMV or a rank-2k update):
  /// alternately first-to-last and last-to-first tile, so that every sweep begins on the tiles
  /// the previous one touched last, which are still in the 60 MB L2 (gpu.md). Only the order in
  /// which tiles are visited changes, never a chain: same bits. EIGSOLVE_GPU_SYMV_ALT=0: every
  /// sweep first to last (A/B).
  bool next_reverse() {
    const bool r = alt_ && rev_;
    rev_ = !rev_;
    return r;
  }
  /// w = A(g+1:n, g+1:n) v into W(g+1:n, i), the configuration looked up once per order.
  /// defer (non-null): a two-pass configuration runs its tile kernel only, the row sums'
  /// arguments go to *defer and *deferred says so (the caller runs them in rowsums_w_kernel).
  void column_symv(index_t g, index_t i, symv_cuda::SymvArgs<T>* defer = nullptr,
                   bool* deferred = nullptr) {
    const index_t m = n_ - g - 1;
    if (!sel_ok_[std::size_t(m)]) {
      sel_[std::size_t(m)] = symv_select<T>(m, ldd_);
      sel_ok_[std::size_t(m)] = 1;
    }
    SymvRunOptions o;
    o.reverse = next_reverse();
    o.defer_rowsums = defer;
    o.rowsums_deferred = deferred;
    if (deferred) *deferred = false;
    symv_gpu<T>(sel_[std::size_t(m)], m, T(1), dA_ + (g + 1) + ldd_ * (g + 1), ldd_,
                dA_ + (g + 1) + ldd_ * g, 1, T(0), dW_ + (g + 1) + n_ * i, 1, ws_, wsb_, st_, o);
  }
  /// After a panel's columns: the rank-2k trailing update and the panel finish (d, e).
  void panel_update(index_t j0, index_t nb) {
    using R = real_t<T>;
    const index_t s = j0 + nb, m = n_ - s;
    if (m > 0)
      rank2k(m, index_t(nb), dA_ + s + ldd_ * j0, ldd_, dW_ + s, n_, dA_ + s + ldd_ * s,
             next_reverse(), true);
    mark(7);
    launch(panel_finish_kernel<T>, 1, unsigned(nb), j0, index_t(nb), dA_, ldd_,
           static_cast<const R*>(de_), dd_);
    mark(8);
    ck(cudaGetLastError(), "device panel update");
    end_column(6);
  }
  /// A(m x m, lower) -= V W^H + W V^H, one block per stored 64x64 tile in the canonical chain
  /// (panel_kernels.cuh): rank2k_wide_kernel for s, d and c, rank2k_kernel bounded to 2 blocks
  /// per SM for z and the sloppy build's dd (kRank2kBound2), unless EIGSOLVE_GPU_RANK2K=0 or
  /// EIGSOLVE_GPU_R2K_BOUND=0 (the same bits); rank2k_kernel otherwise.
  /// rev: tiles last to first; in_loop: a kernel of the panel loop (programmatic dependent
  /// launch as the others), else a plain launch.
  void rank2k(index_t m, index_t kb, const T* V, index_t ldv, const T* W, index_t ldw, T* A,
              bool rev, bool in_loop) {
    const index_t nt = (m + 63) / 64;
    const unsigned grid = unsigned(nt * (nt + 1) / 2);
    auto go = [&](auto kernel, unsigned threads) {
      if (in_loop)
        launch(kernel, grid, threads, m, kb, V, ldv, W, ldw, A, ldd_, nt, rev);
      else
        kernel<<<grid, threads, 0, st_>>>(m, kb, V, ldv, W, ldw, A, ldd_, nt, rev);
    };
    if constexpr (kR2Vw<T> >= 2) {
      if (wide_r2k_) {
        if (in_loop)
          launch(rank2k_wide_kernel<T>, grid, 128u, m, kb, V, ldv, W, ldw, A, ldd_, nt, rev,
                 async_r2k_, vec_r2k_);
        else
          rank2k_wide_kernel<T><<<grid, 128u, 0, st_>>>(m, kb, V, ldv, W, ldw, A, ldd_, nt, rev,
                                                        async_r2k_, vec_r2k_);
        return;
      }
    }
    if constexpr (kRank2kBound2<T>) {
      if (wide_r2k_ && r2k_bound_) return go(rank2k_kernel<T, 2>, 256u);
    }
    go(rank2k_kernel<T>, 256u);
  }
  /// The cooperative column kernel (householder/cuda/panel_coop.cuh): [K5 of column i-1 when
  /// w_prev], then K1 (col: and K2, K3) of column g = j0 + i; one block per 256 rows, at most
  /// what the GPU holds at once (the blocks stride over the rest).
  void launch_coop(index_t g, index_t j0, index_t i, bool w_prev, bool col) {
    namespace pf = panel_fused;
    pf::CoopArgs<T> a{n_,  g,      j0,     i,           dA_,     ldd_, dW_,    n_, dtau_,
                      de_, apart_, slots_, alpha_save_, sqpart_, dt_,  w_prev, col};
    const index_t need = std::max<index_t>(1, (n_ - g + pf::kRows - 1) / pf::kRows);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(unsigned(std::min(need, coop_cap_)));
    cfg.blockDim = dim3(pf::kRows);
    cfg.dynamicSmemBytes = std::size_t(2 * std::max<index_t>(i, 1)) * sizeof(T);
    cfg.stream = st_;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeCooperative;
    at[0].val.cooperative = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    ck(cudaLaunchKernelEx(&cfg, pf::column_coop_kernel<T>, a), "cooperative column kernel");
  }
  /// A kernel of the panel loop, with programmatic dependent launch unless EIGSOLVE_GPU_PDL=0
  /// (every such kernel starts with pdl_begin()).
  template <class... K, class... A>
  void launch(void (*kernel)(K...), unsigned grid, unsigned block, A... args) {
    launch_smem(kernel, grid, block, 0, args...);
  }
  template <class... K, class... A>
  void launch_smem(void (*kernel)(K...), unsigned grid, unsigned block, std::size_t smem,
                   A... args) {
    ck(launch_pdl(kernel, dim3(grid), dim3(block), smem, st_, pdl_ && !profile_, args...),
       "kernel launch");
  }
  void mark(int k) {
    if (profile_) ck(cudaEventRecord(pev_[k], st_), "cudaEventRecord");
  }
  /// Profile: waits for the column and adds each step's time (steps from..from+k).
  void end_column(int from = 0) {
    if (!profile_) return;
    ck(cudaEventSynchronize(pev_[from == 0 ? 6 : 8]), "profile");
    const int lo = from == 0 ? 0 : 6, hi = from == 0 ? 6 : 8;
    for (int k = lo; k < hi; ++k) {
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, pev_[k], pev_[k + 1]), "cudaEventElapsedTime");
      prof_.sec[k] += ms * 1e-3;
    }
  }

  index_t n_;
  int nb_;
  index_t ldd_;
  index_t tail_j0_ = 0;  ///< where the host's unblocked tail began (fetch_tail)
  TridiagDeviceTimes* times_;
  cudaStream_t st_ = nullptr;
  cudaEvent_t ev0_ = nullptr, ev1_ = nullptr;
  cudaEvent_t pev_[9] = {};
  bool pdl_ = true, profile_ = false, fused_ = true, graphs_ = true, fork_ = true, coop_ = false;
  bool wide_r2k_ = true;   ///< rank2k(): rank2k_wide_kernel for s, d and c
  bool r2k_bound_ = true;  ///< EIGSOLVE_GPU_R2K_BOUND=0: z's and dd's rank-2k unbounded
  bool async_r2k_ = true;  ///< EIGSOLVE_GPU_RANK2K_ASYNC=0: rank2k_wide_kernel stages by registers
  bool vec_r2k_ = true;    ///< EIGSOLVE_GPU_RANK2K_VEC=0: rank2k_wide_kernel moves A by element
  bool rows_w_ = true;     ///< fused_panel(): the SYMV's row sums and K5 in rowsums_w_kernel
  bool k12_ = false;       ///< fused_panel(): K1 with K2's partials (colupd_sq_kernel), not dd
  bool k12() const { return k12_ && !std::is_same_v<T, dd_real>; }
  index_t coop_cap_ = 0;
  cudaStream_t st2_ = nullptr;
  cudaEvent_t ev_fork_ = nullptr, ev_join_ = nullptr;
  cudaGraphExec_t gexec_ = nullptr;
  long instantiations_ = 0;
  real_t<T>*slots_ = nullptr, *sqpart_ = nullptr;
  T *alpha_save_ = nullptr, *apart_ = nullptr;
  real_t<T>* slots_min_ = nullptr;  ///< K12's block minima of the nonzero components of x
  PanelProfile prof_;
  T* dA_ = nullptr;
  void* ws_ = nullptr;
  std::size_t wsb_ = 0;
  T *dV_ = nullptr, *dW_ = nullptr, *dv_ = nullptr, *dw_ = nullptr;
  T *hV_ = nullptr, *hW_ = nullptr, *hv_ = nullptr, *hw_ = nullptr;
  unsigned long long* dmax_ = nullptr;
  bool device_panels_ = false;
  real_t<T>*dd_ = nullptr, *de_ = nullptr;
  T *dtau_ = nullptr, *dt_ = nullptr;
  std::vector<SymvConfig> sel_;
  bool alt_ = true, rev_ = false;  ///< next_reverse()
  std::vector<char> sel_ok_;
};

}  // namespace

template <class T>
std::uint64_t tridiag_device_bytes(index_t n, int nb) {
  const std::uint64_t e = sizeof(T), un = std::uint64_t(std::max<index_t>(n, 1));
  const std::uint64_t unb = std::uint64_t(std::max(nb, 1)), tiles = (un + 63) / 64;
  // matrix, SYMV workspace, V and W, v and w, d/e/tau, panel dots and their tile partials
  const std::uint64_t ld = (un + kLdMulOf<T> - 1) / kLdMulOf<T> * kLdMulOf<T>;
  return ld * un * e + symv_workspace_bytes<T>(std::max<index_t>(n, 1)) + 2 * un * unb * e +
         2 * un * e + 3 * un * e + (2 * unb + 1) * (tiles + 1) * e + un * e + 2 * (tiles + 1) * e +
         (1u << 20);
}

template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag(index_t n, const T* A, index_t lda, int nb,
                                                        TridiagDeviceTimes* times,
                                                        bool device_panels) {
  return std::make_unique<CudaTridiag<T>>(n, A, lda, nullptr, nb, times, device_panels);
}

template <class T>
std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device(index_t n, const T* dA, index_t ldda,
                                                               int nb, TridiagDeviceTimes* times) {
  if (ldda < std::max<index_t>(1, n))
    throw DimensionError("make_cuda_tridiag_device: ldda = " + std::to_string(ldda) +
                         " < max(1, n)");
  return std::make_unique<CudaTridiag<T>>(n, nullptr, ldda, dA, nb, times, true);
}

#define EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA(T)                                  \
  template std::uint64_t tridiag_device_bytes<T>(index_t, int);               \
  template std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag<T>(        \
      index_t, const T*, index_t, int, TridiagDeviceTimes*, bool);            \
  template std::unique_ptr<CudaTridiagDevice<T>> make_cuda_tridiag_device<T>( \
      index_t, const T*, index_t, int, TridiagDeviceTimes*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA)
#undef EIGSOLVE_INSTANTIATE_TRIDIAG_CUDA

}  // namespace eigsolve
