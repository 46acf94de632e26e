// Eigenvectors with the data resident on the device (solver/vectors_cuda.hpp):
//
//   Z_T (real, n x m) := inverse_iteration_device          [device; else host, then uploaded]
//   Z := T(Z_T)                                             [complex: one widening kernel]
//   Z := Q Z, apply_q_canonical_device on the reflectors the tridiagonalization left there
//   host z <-- Z through pinned chunks, group by group; z's pages first touched meanwhile
//
// The back-transformation overlaps phase B of the inverse iteration (EIGSOLVE_GPU_BT_OVERLAP=0:
// after it), and the download overlaps the back-transformation. Phase B is a chain of dependent
// dots on a few SMs; the back-transformation of the columns it has finished is independent work
// for the others:
//
//   stream ps (high pri.)  phase A | phase B waves ... check ...... check ........ |
//                                                   ready(F1)     ready(F2)       return
//   thread "bt", stream bs (low pri.)  T factors [widen] QZ[0,F1) [widen] QZ[F1,F2) .. QZ[F2,m)
//   thread "down"          touch z's pages ........ z[0,F1) <-- Z ... z[F1,F2) <-- Z .. [F2,m)
//
// ready(F) (InvitDeviceHooks) says columns [0, F) are final and never read again by phase B;
// a group is sent once it has EIGSOLVE_GPU_BT_CHUNK columns (default max(1024, m / 8)). A
// column's bits do not depend on its group (apply_q_device_columns), so Z is the same.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/cuda/dev_mem.cuh"
#include "core/cuda/staged_copy.cuh"
#include "core/env_flag.hpp"
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "householder/two_stage_cuda.hpp"
#include "solver/back_transform_cuda.hpp"
#include "solver/inverse_iteration.hpp"
#include "solver/vectors_cuda.hpp"

namespace eigsolve {
namespace {

using staged::ck;

/// z[k] = (zr[k], 0) for k < count: the real vectors of T as complex ones (the host's T(zt[k])).
template <class R>
__global__ void widen_kernel(std::size_t count, const R* __restrict__ zr, R* __restrict__ z) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    z[2 * k] = zr[k];
    z[2 * k + 1] = R(0);
  }
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A non-blocking stream of the given priority, destroyed on every path.
struct Stream {
  cudaStream_t s = nullptr;
  explicit Stream(int priority) {
    ck(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority), "cudaStreamCreate");
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(s); }
};

/// A host thread that runs init(), then apply(c0, c1) for the column groups posted to it, in
/// order: the enqueueing of a group's ~2000 kernels stays off the thread that drives phase B.
class GroupWorker {
 public:
  GroupWorker(int device, std::function<void()> init, std::function<void(index_t, index_t)> apply)
      : init_(std::move(init)), apply_(std::move(apply)), th_([this, device] { run(device); }) {}
  GroupWorker(const GroupWorker&) = delete;
  GroupWorker& operator=(const GroupWorker&) = delete;
  ~GroupWorker() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    if (th_.joinable()) th_.join();
  }
  /// Columns [0, f) may be transformed.
  void post(index_t f) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      target_ = std::max(target_, f);
    }
    cv_.notify_all();
  }
  index_t posted() const {
    std::lock_guard<std::mutex> lk(mu_);
    return target_;
  }
  /// Posts f, waits until every group is enqueued; rethrows the worker's exception.
  void finish(index_t f) {
    post(f);
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    th_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run(int device) {
    index_t done = 0;
    try {
      ck(cudaSetDevice(device), "cudaSetDevice");
      init_();
      for (;;) {
        index_t t = 0;
        {
          std::unique_lock<std::mutex> lk(mu_);
          cv_.wait(lk, [&] { return quit_ || target_ > done; });
          if (target_ <= done) return;  // quit, nothing left
          t = target_;
        }
        apply_(done, t);
        done = t;
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  std::function<void()> init_;
  std::function<void(index_t, index_t)> apply_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  index_t target_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;
  std::thread th_;  // last: starts after the members it uses
};

/// A host thread that first touches the host vectors' pages (fill: a 2 GB vector's page faults
/// cost ~0.3 s even in parallel; here they overlap the inverse iteration), then downloads the
/// column groups posted to it, each once its event has completed (the back-transformation of
/// those columns is done), in order: the download overlaps the back-transformation of the
/// later groups. Columns are contiguous (ld = n): group [c0, c1) is bytes [c0 cb, c1 cb).
class Downloader {
 public:
  /// fill() touches the pages and returns the host base address; landed(c0, c1) (optional)
  /// runs after each group's copy. cols: the columns of cb bytes that will be downloaded in all
  /// (the staging chunks are no larger).
  Downloader(int device, std::function<void*()> fill, const void* dev, std::size_t cb,
             std::size_t cols, const std::function<void(index_t, index_t)>* landed)
      : fill_(std::move(fill)),
        landed_(landed),
        dev_(static_cast<const char*>(dev)),
        cb_(cb),
        cols_(cols),
        th_([this, device] { run(device); }) {}
  Downloader(const Downloader&) = delete;
  Downloader& operator=(const Downloader&) = delete;
  ~Downloader() {  // on an error path: pending downloads are dropped
    {
      std::lock_guard<std::mutex> lk(mu_);
      abort_ = true;
    }
    stop();
    for (const Job& j : jobs_)
      cudaEventDestroy(j.ev);
  }
  /// Columns [c0, c1) are final on the device once ev (recorded by the caller) has completed;
  /// the downloader owns ev.
  void post(index_t c0, index_t c1, cudaEvent_t ev) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      jobs_.push_back({c0, c1, ev});
    }
    cv_.notify_all();
  }
  /// Waits until the page touching and every posted download are done; rethrows their error.
  void finish() {
    stop();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Job {
    index_t c0, c1;
    cudaEvent_t ev;
  };
  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    if (th_.joinable()) th_.join();
  }
  void run(int device) {
    try {
      host_ = static_cast<char*>(fill_());
      ck(cudaSetDevice(device), "cudaSetDevice");
      std::unique_ptr<staged::Stager> sg;
      if (staged::enabled())
        sg = std::make_unique<staged::Stager>(8, cb_ * cols_);  // phase B's driver keeps a core
      for (;;) {
        Job j{};
        {
          std::unique_lock<std::mutex> lk(mu_);
          cv_.wait(lk, [&] { return quit_ || (eager_ && !jobs_.empty()); });
          if (abort_ || jobs_.empty()) return;  // dropped, or quit with nothing left
          j = jobs_.front();
          jobs_.pop_front();
        }
        const cudaError_t st = cudaEventSynchronize(j.ev);
        cudaEventDestroy(j.ev);
        ck(st, "back-transformation kernels");
        const std::size_t off = std::size_t(j.c0) * cb_, nc = std::size_t(j.c1 - j.c0);
        if (sg)
          sg->d2h(host_ + off, cb_, dev_ + off, cb_, cb_, nc);
        else
          ck(cudaMemcpy(host_ + off, dev_ + off, nc * cb_, cudaMemcpyDeviceToHost), "download Z");
        if (landed_ && *landed_) (*landed_)(j.c0, j.c1);
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  std::function<void*()> fill_;
  const std::function<void(index_t, index_t)>* landed_;
  char* host_ = nullptr;
  const char* dev_;
  std::size_t cb_, cols_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool quit_ = false, abort_ = false;
  // EIGSOLVE_GPU_DOWNLOAD_OVERLAP=0: every download after the whole back-transformation.
  const bool eager_ = [] {
    const char* e = std::getenv("EIGSOLVE_GPU_DOWNLOAD_OVERLAP");
    return !(e && e[0] == '0');
  }();
  std::exception_ptr error_;
  std::thread th_;  // last: starts after the members it uses
};

/// EIGSOLVE_GPU_BT_OVERLAP=0: the back-transformation after the inverse iteration.
bool overlap_enabled() {
  const char* e = std::getenv("EIGSOLVE_GPU_BT_OVERLAP");
  return !(e && e[0] == '0');
}

/// The fewest columns per group sent during phase B (EIGSOLVE_GPU_BT_CHUNK=N, N >= 1).
index_t group_columns(index_t m) {
  if (const char* e = std::getenv("EIGSOLVE_GPU_BT_CHUNK"); e && std::atoll(e) > 0)
    return static_cast<index_t>(std::atoll(e));
  return std::max<index_t>(1024, (m / 8 + 63) / 64 * 64);
}

/// EIGSOLVE_GPU_BT_Q1_BATCH=N (two-stage): Q2 on each group as it comes, Q1 only once N columns
/// (or the last) are waiting for it, so that step 1 of the back-transformation runs on wider
/// groups (fewer tile segments, fewer tile partials written and summed). Unset or 0: 1, Q1 right
/// after Q2, group by group (the default). A column's bits do not depend on its group: the same Z.
/// Slower at every N measured (session 50, d 16384 on an H100: 2.75 s default, 2.82-3.07 s with
/// 4096-16384): Q1 then waits for whole batches and its work piles up after phase B.
index_t q1_batch_columns() {
  if (const char* e = std::getenv("EIGSOLVE_GPU_BT_Q1_BATCH"); e && std::atoll(e) > 0)
    return static_cast<index_t>(std::atoll(e));
  return 1;
}

/// The back-transformation's device calls: the one-stage Z := Q Z on (n, dA, dtau), or with the
/// two-stage reflectors Z := Q2 Z, then stage 1's Q1 as the one-stage form of order n - b + 1
/// moved down b - 1 rows (docs/canonical-two-stage.md, "Z := Q1 Z").
template <class T>
struct BackTransformPlan {
  const TwoStageDeviceReflectors<T>* ts = nullptr;
  index_t n = 0, nq = 0, off = 0;  // nq: order of the one-stage form; off: its first row
  const T* dA = nullptr;
  index_t ldda = 0;
  const T* dtau = nullptr;

  BackTransformPlan(index_t n_, const T* dA_, index_t ldda_, const TwoStageDeviceReflectors<T>* ts_)
      : ts(ts_), n(n_), nq(n_), dA(dA_), ldda(ldda_) {
    if (ts) {
      off = ts->b - 1;
      nq = std::max<index_t>(n - off, 0);
      dA = ts->dA + off;
      ldda = ts->ldda;
      dtau = ts->dtau1;
    }
  }
  bool pack = true;     // Q2 reads the packed V tiles (q2_packed_bytes > 0; false: V2 as it is)
  bool pack_q1 = true;  // Q1's reflectors packed once (apply_q_device_workspace_bytes_pack_once)
  bool has_q1() const { return nq > 1; }
  /// Q1's workspace, rounded up to 256 bytes; then the packed V tiles of Q2.
  std::size_t q1_bytes(index_t m) const {
    if (!has_q1()) return 0;
    const std::size_t b = pack_q1 ? apply_q_device_workspace_bytes_pack_once<T>(nq, m)
                                  : apply_q_device_workspace_bytes<T>(nq, m);
    return (b + 255) / 256 * 256;
  }
  std::size_t packed_bytes() const { return ts && pack ? q2_packed_bytes<T>(n, ts->b) : 0; }
  std::size_t workspace_bytes(index_t m) const { return q1_bytes(m) + packed_bytes(); }
  /// Q1's reflectors packed once and Q2's packed V tiles (~n^2/2 elements each) only where they
  /// fit in free_b beside `rest` bytes (Q1's given up first): without them the same bits,
  /// slower (the profile line says which).
  void fit(index_t m, std::size_t rest, std::size_t free_b) {
    if (rest + workspace_bytes(m) > free_b) pack_q1 = false;
    if (rest + workspace_bytes(m) > free_b) pack = false;
  }
  T* packed(index_t m, void* w) const {
    return packed_bytes() ? reinterpret_cast<T*>(static_cast<char*>(w) + q1_bytes(m)) : nullptr;
  }
  void prepare(index_t m, void* w, std::size_t wb, cudaStream_t st) const {
    if (wb < workspace_bytes(m)) throw DimensionError("back-transformation: workspace too small");
    if (has_q1()) apply_q_device_prepare<T>(nq, dA, ldda, dtau, m, w, q1_bytes(m), st);
    if (packed_bytes())
      pack_q2_device<T>(n, ts->b, ts->dV2, ts->ldv2, ts->dtau2, ts->ldt2, packed(m, w), st);
  }
  /// Z := Q Z on the nc columns at Zc (ld n): columns_q2, then columns_q1.
  /// With `prof` (EIGSOLVE_GPU_PROFILE=1, two-stage) each product is timed by events and the
  /// call waits for it (serialised): prof[0] += Q2's seconds, prof[1] += Q1's.
  void columns(index_t m, index_t nc, T* Zc, void* w, cudaStream_t st,
               double* prof = nullptr) const {
    columns_q2(m, nc, Zc, w, st, prof);
    columns_q1(m, nc, Zc, w, st, prof);
  }
  /// Z := Q2 Z (two-stage only; nothing for the one-stage form).
  void columns_q2(index_t m, index_t nc, T* Zc, void* w, cudaStream_t st, double* prof) const {
    if (!ts) return;
    timed(st, prof ? prof + 0 : nullptr, [&] {
      apply_q2_canonical_device<T>(n, ts->b, ts->dV2, ts->ldv2, ts->dtau2, ts->ldt2, nc, Zc, n, st,
                                   packed(m, w));
    });
  }
  /// Z := Q1 Z (the one-stage form; two-stage: stage 1's, after Q2).
  void columns_q1(index_t m, index_t nc, T* Zc, void* w, cudaStream_t st, double* prof) const {
    if (!has_q1()) return;
    timed(st, ts && prof ? prof + 1 : nullptr,
          [&] { apply_q_device_columns<T>(nq, dA, ldda, m, nc, Zc + off, n, w, q1_bytes(m), st); });
  }

 private:
  /// f() on st; with acc, timed by events (waited for) and the seconds added to *acc.
  template <class F>
  static void timed(cudaStream_t st, double* acc, F&& f) {
    if (acc == nullptr) {
      f();
      return;
    }
    cudaEvent_t ev[2] = {nullptr, nullptr};
    for (auto& e : ev)
      ck(cudaEventCreate(&e), "cudaEventCreate");
    ck(cudaEventRecord(ev[0], st), "cudaEventRecord");
    f();
    ck(cudaEventRecord(ev[1], st), "cudaEventRecord");
    ck(cudaEventSynchronize(ev[1]), "profile");
    float a = 0;
    ck(cudaEventElapsedTime(&a, ev[0], ev[1]), "cudaEventElapsedTime");
    *acc += a * 1e-3;
    for (auto& e : ev)
      cudaEventDestroy(e);
  }
};

}  // namespace

template <class T>
void eigenvectors_cuda(const Context& ctx, index_t n, const real_t<T>* d, const real_t<T>* e,
                       index_t m, const real_t<T>* w, index_t k0, const T* dA, index_t ldda,
                       const T* tau, std::vector<T>& z, VectorsDeviceTimes* times,
                       const std::function<void(index_t, index_t)>* landed,
                       const TwoStageDeviceReflectors<T>* two_stage) {
  using R = real_t<T>;
  constexpr bool cplx = is_complex_v<T>;
  if (n < 0 || m < 0 || m > n) throw DimensionError("eigenvectors_cuda: bad n or m");
  if (!two_stage && n > 0 && ldda < n) throw DimensionError("eigenvectors_cuda: ldda < n");
  if (two_stage && two_stage->n != n) throw DimensionError("eigenvectors_cuda: two-stage n");
  BackTransformPlan<T> plan(n, dA, ldda, two_stage);
  VectorsDeviceTimes tm;
  const std::size_t count = std::size_t(n) * std::size_t(m);
  if (count == 0) {
    assign_zeros_parallel(z, count, ctx.num_threads());
    if (times) *times = tm;
    return;
  }
  const std::size_t bZ = count * sizeof(T), bZr = cplx ? count * sizeof(R) : 0;
  const std::size_t bt = two_stage ? 0 : std::size_t(std::max<index_t>(n, 1)) * sizeof(T);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  plan.fit(m, bZ + bZr + bt, free_b);
  const std::size_t bw = plan.workspace_bytes(m);
  const std::size_t need = bZ + bZr + bt + bw;
  require_device_memory("these eigenvectors: order " + std::to_string(n) + " with " +
                            std::to_string(m) + " vectors in " + ScalarTraits<T>::name,
                        need, free_b, total_b, true);
  auto t0 = std::chrono::steady_clock::now();
  const bool overlap = overlap_enabled();
  int lo_pri = 0, hi_pri = 0, dev = 0;
  ck(cudaDeviceGetStreamPriorityRange(&lo_pri, &hi_pri), "stream priorities");
  ck(cudaGetDevice(&dev), "cudaGetDevice");
  const Stream ps(hi_pri), bs(lo_pri);
  DevMem dZ, dZr, dt, dw;
  dZ.alloc(bZ, "cudaMalloc Z");
  R* zr = static_cast<R*>(dZ.p);  // real T: Z_T is Z
  if constexpr (cplx) {
    dZr.alloc(bZr, "cudaMalloc Z of T");
    zr = static_cast<R*>(dZr.p);
  }
  BackTransformPlan<T> bplan = plan;
  // EIGSOLVE_GPU_PROFILE=1 with the two-stage reflectors: Q2 and Q1 timed per group (serialised).
  const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE");
  const bool profile_q = two_stage && pf && pf[0] == '1';
  double q_seconds[2] = {0, 0};
  if (!two_stage) {
    dt.alloc(bt, "cudaMalloc tau");
    if (n > 1)
      ck(cudaMemcpyAsync(dt.p, tau, std::size_t(n - 1) * sizeof(T), cudaMemcpyHostToDevice, bs.s),
         "tau");
    bplan.dtau = static_cast<const T*>(dt.p);
  }
  dw.alloc(bw, "cudaMalloc workspace");
  T* Z = static_cast<T*>(dZ.p);
  // 3. (a host thread) z's pages touched, then each group of columns downloaded once it is
  // back-transformed. Declared before the worker, which posts to it.
  Downloader down(
      dev,
      [&]() -> void* {
        assign_zeros_parallel(z, count, ctx.num_threads());
        return z.data();
      },
      Z, sizeof(T) * std::size_t(n), std::size_t(m), landed);
  // 2. (on bs, from the worker thread) the T factors; then Z := Q Z by groups of columns
  // [c0, c1) as they are posted (complex: Z_T's columns widened first).
  const index_t q1_batch = two_stage ? q1_batch_columns() : 1;
  index_t q1_from = 0;  // the first column Q1 has not been applied to
  GroupWorker worker(
      dev, [&] { bplan.prepare(m, dw.p, bw, bs.s); },
      [&](index_t c0, index_t c1) {
        if constexpr (cplx) {
          widen_kernel<R><<<1024, 256, 0, bs.s>>>(std::size_t(n) * std::size_t(c1 - c0),
                                                  zr + std::size_t(n) * std::size_t(c0),
                                                  reinterpret_cast<R*>(Z + std::size_t(n) * c0));
          ck(cudaGetLastError(), "widen Z");
        }
        // Q2 on this group; Q1 once q1_batch columns wait for it, or at the end (the default 1:
        // right after Q2, group by group)
        double* prof = profile_q ? q_seconds : nullptr;
        bplan.columns_q2(m, c1 - c0, Z + std::size_t(n) * c0, dw.p, bs.s, prof);
        if (c1 < m && c1 - q1_from < q1_batch) return;
        bplan.columns_q1(m, c1 - q1_from, Z + std::size_t(n) * q1_from, dw.p, bs.s, prof);
        c0 = q1_from;
        q1_from = c1;
        cudaEvent_t ev = nullptr;
        ck(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate");
        const cudaError_t st = cudaEventRecord(ev, bs.s);
        if (st != cudaSuccess) cudaEventDestroy(ev);
        ck(st, "cudaEventRecord");
        down.post(c0, c1, ev);
      });
  // 1. Z_T on the device (phase B handing finished columns to the worker), else on the host
  // (same bits) and uploaded.
  InvitDeviceHooks hooks;
  hooks.stream = ps.s;
  const index_t group = group_columns(m);
  if (overlap)
    hooks.ready = [&](index_t f) {
      if (f - worker.posted() >= group) worker.post(f);
    };
  tm.invit_on_device = inverse_iteration_device<R>(ctx, n, d, e, m, w, k0, zr, nullptr, &hooks);
  if (!tm.invit_on_device) {
    std::vector<R> zt;
    assign_zeros_parallel(zt, count, ctx.num_threads());
    inverse_iteration<R>(ctx, n, d, e, m, w, k0, zt.data(), n);
    ck(cudaMemcpyAsync(zr, zt.data(), count * sizeof(R), cudaMemcpyHostToDevice, bs.s),
       "upload Z of T");
    ck(cudaStreamSynchronize(bs.s), "upload Z of T");  // zt goes out of scope
  }
  tm.inverse_iteration = since(t0);
  tm.early_columns = worker.posted();
  t0 = std::chrono::steady_clock::now();
  worker.finish(m);
  ck(cudaStreamSynchronize(bs.s), "back-transformation kernels");
  if constexpr (cplx) dZr.reset();
  tm.back_transform = since(t0);
  // 3. What is left of the download.
  t0 = std::chrono::steady_clock::now();
  down.finish();
  if (profile_q)
    std::fprintf(
        stderr,
        "eigsolve two-stage back-transformation (n = %lld, m = %lld, b = %lld): Q2 %.3f s, "
        "Q1 %.3f s (kernels, each group serialised), Q2's V tiles %s, Q1's %s\n",
        static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(two_stage->b),
        q_seconds[0], q_seconds[1], plan.packed_bytes() ? "packed" : "not packed",
        plan.pack_q1 && env_flag("EIGSOLVE_GPU_BT_PACK_ONCE", true) ? "packed once"
                                                                    : "packed per group");
  tm.download = since(t0);
  if (times) *times = tm;
}

template <class T>
void apply_q_two_stage_cuda(const TwoStageDeviceReflectors<T>& r, index_t m, T* Z, index_t ldz) {
  const index_t n = r.n;
  if (m < 0 || ldz < std::max<index_t>(n, 1))
    throw DimensionError("apply_q_two_stage_cuda: bad m or ldz");
  if (n <= 1 || m == 0) return;
  BackTransformPlan<T> plan(n, nullptr, 0, &r);
  const std::size_t bZ = std::size_t(n) * std::size_t(m) * sizeof(T);
  std::size_t free_b = 0, total_b = 0;
  ck(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  plan.fit(m, bZ, free_b);
  const std::size_t bw = plan.workspace_bytes(m);
  require_device_memory("these eigenvectors: order " + std::to_string(n) + " with " +
                            std::to_string(m) + " vectors in " + ScalarTraits<T>::name,
                        bZ + bw, free_b, total_b, true);
  DevMem dZ, dw;
  dZ.alloc(bZ, "cudaMalloc Z");
  dw.alloc(bw, "cudaMalloc workspace");
  T* dz = static_cast<T*>(dZ.p);
  const Stream st(0);
  ck(cudaMemcpy2DAsync(dz, std::size_t(n) * sizeof(T), Z, std::size_t(ldz) * sizeof(T),
                       std::size_t(n) * sizeof(T), std::size_t(m), cudaMemcpyHostToDevice, st.s),
     "upload Z");
  plan.prepare(m, dw.p, bw, st.s);
  plan.columns(m, m, dz, dw.p, st.s);
  ck(cudaMemcpy2DAsync(Z, std::size_t(ldz) * sizeof(T), dz, std::size_t(n) * sizeof(T),
                       std::size_t(n) * sizeof(T), std::size_t(m), cudaMemcpyDeviceToHost, st.s),
     "download Z");
  ck(cudaStreamSynchronize(st.s), "two-stage back-transformation");
}

#define EIGSOLVE_INSTANTIATE_VECTORS_CUDA(T)                                                  \
  template void eigenvectors_cuda<T>(                                                         \
      const Context&, index_t, const real_t<T>*, const real_t<T>*, index_t, const real_t<T>*, \
      index_t, const T*, index_t, const T*, std::vector<T>&, VectorsDeviceTimes*,             \
      const std::function<void(index_t, index_t)>*, const TwoStageDeviceReflectors<T>*);      \
  template void apply_q_two_stage_cuda<T>(const TwoStageDeviceReflectors<T>&, index_t, T*, index_t);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_VECTORS_CUDA)
#undef EIGSOLVE_INSTANTIATE_VECTORS_CUDA

}  // namespace eigsolve
