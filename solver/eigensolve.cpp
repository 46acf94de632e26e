// The pipeline driver eigensolve<T>() and the solver names (solver/eigensolve.hpp).
//
//   A --tridiagonalize--> (d, e, reflectors) --eigen stage on R = real_t<T>--> w [, Z_T]
//     --copy Z_T into T, back_transform (Q Z; canonical blocked order by default)--> Z
//     --normalize_signs--> result
//
// Eigen stage per solver (s = the Subset):
//   bisection  values: canonical bisection of the index range of s (value range: two Sturm
//              counts give it); vectors: inverse_iteration (the only path for dd)
//   sterf      all values by ?sterf, then the slice of s; vectors: ?stein on that slice
//   stedc      all values (and vectors) by ?stedc, then the slice (columns) of s
//   stemr      ?stemr with range 'A' / 'I' / 'V' itself
#include "solver/eigensolve.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <chrono>
#include <limits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "householder/tridiag_cuda.hpp"
#include "householder/tridiagonalize.hpp"
#include "householder/two_stage.hpp"
#include "householder/two_stage_cuda.hpp"
#include "solver/back_transform.hpp"
#include "solver/back_transform_cuda.hpp"
#include "solver/bisection.hpp"
#include "solver/bisection_cuda.hpp"
#include "solver/inverse_iteration.hpp"
#include "solver/lapack.hpp"
#include "solver/vectors_cuda.hpp"

namespace eigsolve {

const char* tridiag_solver_name(TridiagSolver s) {
  switch (s) {
    case TridiagSolver::bisection:
      return "bisection";
    case TridiagSolver::sterf:
      return "sterf";
    case TridiagSolver::stedc:
      return "stedc";
    case TridiagSolver::stemr:
      return "stemr";
  }
  return "?";
}

TridiagSolver parse_tridiag_solver(const std::string& s) {
  if (s == "bisection") return TridiagSolver::bisection;
  if (s == "sterf") return TridiagSolver::sterf;
  if (s == "stedc") return TridiagSolver::stedc;
  if (s == "stemr") return TridiagSolver::stemr;
  throw UsageError("unknown tridiagonal solver '" + s +
                   "' (expected bisection, sterf, stedc or stemr)");
}

const char* reduction_name(Reduction r) {
  switch (r) {
    case Reduction::two_stage:
      return "two-stage";
    case Reduction::automatic:
      return "auto";
    default:
      return "one-stage";
  }
}

Reduction parse_reduction(const std::string& s) {
  if (s == "one-stage") return Reduction::one_stage;
  if (s == "two-stage") return Reduction::two_stage;
  if (s == "auto") return Reduction::automatic;
  throw UsageError("unknown reduction '" + s + "' (expected auto, one-stage or two-stage)");
}

index_t two_stage_min_order(Precision p) {
  // The crossover of the two reductions' eigenvalue times on the H200, re-measured in session 42
  // (bench/NOTES.md, session 42; bench/results/2026-12-05-h200-s42/r3, r4), one-stage /
  // two-stage, seconds: s and d two-stage at every size measured, from 1024 (s 0.0225 / 0.0183,
  // d 0.0295 / 0.0238) up; c about even at 1536-3072 (0.0456 / 0.0460, 0.0626 / 0.0619,
  // 0.0980 / 0.0975) and two-stage from 4096 (0.146 / 0.138); z one-stage at 6144 (0.419 /
  // 0.439), two-stage from 7168 (0.572 / 0.551); dd one-stage at 8192 (1.968 / 2.039),
  // two-stage from 10240 (3.262 / 3.183). (Session 16 had set 8192 for d and z, 12288 for s
  // and c, 16384 for dd; the chase, the panel QR and the SYMM have gained since.)
  // s and d below 1024 (session 47, an H100, bench/results/2026-12-05-h100-s47, medians of 5,
  // two rounds): two-stage from 48 on by 25-70 % (d 48 0.0031 / 0.0010-0.0012 s, 128 0.0048 /
  // 0.0027, 512 0.0164 / 0.0117; s 512 0.0117 / 0.0088), even at 16 and 32 (0.3-0.8 ms
  // either way); the 2-core CPU: two-stage as fast or faster at 16-1024. So s and d take the
  // two-stage reduction at every order, with eigenvectors too (two_stage_min_order_vectors),
  // and a run's eigenvalue bits do not depend on --vectors in s and d.
  switch (p) {
    case Precision::s:
    case Precision::d:
      return 1;
    case Precision::c:
      return 4096;
    case Precision::z:
      return 7168;
    default:
      return 10240;
  }
}

index_t two_stage_min_order_vectors(Precision p) {
  // With vectors the two-stage pipeline also applies Q2 (d 16384: ~1 s of kernels). Since the
  // chase's full levels (session 19, r4 v-cross.log), d with vectors on the H200: two-stage
  // 3.373 / one-stage 3.455 s at 16384, 1.734 / 1.650 s at 12288, 0.753 / 0.709 s at 8192.
  // Session 23, with the panel QR in registers (r3/r4 vec-auto): two-stage / one-stage 1.024 /
  // 1.052 s at 10240, 1.493 / 1.607 s at 12288, 2.128 / 2.341 s at 14336 (8192: two-stage
  // 0.678 s, one-stage not measured again), so d takes two-stage from 10240.
  // Session 42 (r3, r4; one run each): s one-stage / two-stage 1.017 / 1.041 s at 12288, 1.446
  // / 1.409 at 14336, 1.977 / 1.913 at 16384; c 2.075 / 2.244 at 12288, 4.122 / 4.662 at
  // 16384; z 3.356 / 3.958, 7.513 / 8.314. So c and z stay one-stage. s repeated (r4's r5.log,
  // r6.log): 1.995, 1.976 / 1.925, 1.913 s at 16384 and 1.430, 1.442 / 1.423, 1.426 at 14336,
  // so s took two-stage from 14336 (between 12288, one-stage by 2 %, and 14336, two-stage by
  // 1-3 %), d from 10240.
  // Session 47 (an H100, bench/results/2026-12-05-h100-s47; today's back-transformation and
  // chase), one-stage / two-stage with vectors, two rounds: d two-stage at every order from
  // 1024 (0.072-0.076 / 0.066-0.071 s; 4096 0.179-0.201 / 0.173-0.185; 6144 0.411 / 0.369-0.374;
  // 8192 0.698-0.700 / 0.610-0.613) and even at 128-768; s even at 128-4096 (+-10 %, 2048
  // 0.084-0.097 / 0.075-0.090) and one-stage by 3-5 % at 6144-8192 (0.462-0.478 /
  // 0.487-0.489 at 8192). The 2-core CPU pays 8-25 % for two-stage vectors at 768-6144 in d
  // (2048: 0.75-0.80 / 0.94-0.95 s; 6144: 16.5-17.8 / 18.8-19.3 s), none at 64-256. One rule for
  // eigenvalues and vectors in s and d (two_stage_min_order: every order), so that their
  // eigenvalue bits never depend on --vectors: the GPU gains 5-13 % in d, the CPU pays the above.
  // c and z keep one-stage vectors (c 4096: 0.239-0.245 / 0.255-0.263 s, z 4096: 0.316-0.335 /
  // 0.412-0.415 s on the same H100).
  switch (p) {
    case Precision::d:
    case Precision::s:
      return two_stage_min_order(p);
    default:
      return std::numeric_limits<index_t>::max();
  }
}

Reduction resolve_reduction(Reduction r, index_t n, Precision p, bool vectors) {
  if (r != Reduction::automatic) return r;
  const index_t n0 = vectors ? two_stage_min_order_vectors(p) : two_stage_min_order(p);
  return n >= n0 ? Reduction::two_stage : Reduction::one_stage;
}

Reduction resolve_reduction(const SolveOptions& opt, index_t n, Precision p) {
  if (opt.reduction == Reduction::automatic && opt.vectors &&
      opt.back_transform != BackTransformMethod::canonical)
    return Reduction::one_stage;
  return resolve_reduction(opt.reduction, n, p, opt.vectors);
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void report(const SolveOptions& opt, const char* stage, double f) {
  if (opt.progress) opt.progress(stage, f);
}

/// The index range [il, iu] of an index subset, validated (value subsets are resolved later).
void check_subset(const Subset& s, index_t n) {
  if (s.kind == Subset::Kind::index) {
    if (s.il < 0 || s.iu >= n || s.il > s.iu)
      throw UsageError("index range [" + std::to_string(s.il) + ", " + std::to_string(s.iu) +
                       "] is not inside [0, " + std::to_string(n - 1) + "] (0-based, il <= iu)");
  } else if (s.kind == Subset::Kind::value) {
    if (!(s.vl < s.vu))
      throw UsageError("value range (" + std::to_string(s.vl) + ", " + std::to_string(s.vu) +
                       "] is empty: need vl < vu");
  }
}

/// Positions [b, e) of the wanted eigenvalues inside the full ascending list w[0..n).
template <class R>
void select_slice(const Subset& s, index_t n, const R* w, index_t& b, index_t& e) {
  b = 0;
  e = n;
  if (s.kind == Subset::Kind::index) {
    b = s.il;
    e = s.iu + 1;
  } else if (s.kind == Subset::Kind::value) {
    const R vl = R(s.vl), vu = R(s.vu);
    while (b < n && !(vl < w[b]))
      ++b;
    e = b;
    while (e < n && !(vu < w[e]))
      ++e;
  }
}

/// Eigen stage on the real tridiagonal: fills w (m values) and, with vectors, zt (n x m).
template <class T>
void tridiag_stage(const Context& ctx, const SolveOptions& opt, index_t n,
                   std::vector<real_t<T>>& d, std::vector<real_t<T>>& e, std::vector<real_t<T>>& w,
                   std::vector<real_t<T>>& zt, index_t* k0 = nullptr) {
  using R = real_t<T>;
  const Subset& s = opt.subset;
  if (opt.solver == TridiagSolver::bisection) {
    index_t il = 0, iu = n - 1;
    if (s.kind == Subset::Kind::index) {
      il = s.il;
      iu = s.iu;
    } else if (s.kind == Subset::Kind::value) {
      bisection_index_range(n, d.data(), e.data(), R(s.vl), R(s.vu), il, iu);
    }
    const index_t m = iu - il + 1;
    if (k0) *k0 = il;
    w.assign(static_cast<std::size_t>(m), R(0));
    if (ctx.backend == Backend::cuda)  // the same canonical bisection, one thread per value
      bisection_eigenvalues_cuda(n, d.data(), e.data(), il, iu, w.data());
    else
      bisection_eigenvalues(ctx, n, d.data(), e.data(), il, iu, w.data());
    report(opt, "eigenvalues", 1.0);
    if (opt.vectors) {
      const auto tz = Clock::now();
      assign_zeros_parallel(zt, static_cast<std::size_t>(n * m), ctx.num_threads());
      if (const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE"); pf && pf[0] == '1')
        std::fprintf(stderr, "eigsolve vectors (n = %lld, m = %lld): Z of T allocated in %.3f s\n",
                     static_cast<long long>(n), static_cast<long long>(m), seconds_since(tz));
      inverse_iteration(ctx, n, d.data(), e.data(), m, w.data(), il, zt.data(), n);
      report(opt, "eigenvectors", 1.0);
    }
    return;
  }
  if constexpr (!has_vendor_lapack_v<T>) {
    throw UsageError(std::string("--tridiag-solver ") + tridiag_solver_name(opt.solver) +
                     " is not available for --precision dd (no LAPACK for double-double); "
                     "use bisection");
  } else {
    e.resize(static_cast<std::size_t>(std::max<index_t>(n, 1)), R(0));  // stemr wants n
    std::vector<R> dc(d), ec(e);  // LAPACK destroys its inputs
    if (opt.solver == TridiagSolver::stemr) {
      char range = 'A';
      if (s.kind == Subset::Kind::index) range = 'I';
      if (s.kind == Subset::Kind::value) range = 'V';
      std::vector<R> wf(static_cast<std::size_t>(n));
      std::vector<R> zf;
      if (opt.vectors) zf.assign(static_cast<std::size_t>(n * n), R(0));
      const index_t m = lapack::stemr(range, n, dc.data(), ec.data(), R(s.vl), R(s.vu), s.il, s.iu,
                                      wf.data(), opt.vectors ? zf.data() : nullptr, n, n);
      w.assign(wf.begin(), wf.begin() + m);
      if (opt.vectors) zt.assign(zf.begin(), zf.begin() + n * m);
    } else {
      std::vector<R> zf;
      if (opt.solver == TridiagSolver::stedc && opt.vectors) {
        zf.assign(static_cast<std::size_t>(n * n), R(0));
        lapack::stedc(n, dc.data(), ec.data(), zf.data(), n);
      } else if (opt.solver == TridiagSolver::stedc) {
        lapack::stedc(n, dc.data(), ec.data(), nullptr, n);
      } else {
        lapack::sterf(n, dc.data(), ec.data());
      }
      index_t b = 0, en = n;
      select_slice(s, n, dc.data(), b, en);
      w.assign(dc.begin() + b, dc.begin() + en);
      const index_t m = en - b;
      report(opt, "eigenvalues", 1.0);
      if (opt.vectors && opt.solver == TridiagSolver::stedc) {
        zt.assign(zf.begin() + b * n, zf.begin() + en * n);
      } else if (opt.vectors) {  // sterf + vectors: ?stein on the selected eigenvalues
        zt.assign(static_cast<std::size_t>(n * m), R(0));
        lapack::stein(n, d.data(), e.data(), m, w.data(), zt.data(), n);
      }
    }
    report(opt, "eigenvalues", 1.0);
  }
}

/// Exponent bounds outside which the matrix is scaled first (half the exponent range of R,
/// as LAPACK's ?syev does with sqrt(safmin) / sqrt(bignum)); dd keeps the double range minus
/// the margin its low word needs (docs/dd.md, "Range").
template <class R>
struct ScaleRange;
template <>
struct ScaleRange<float> {
  static constexpr int lo = -63, hi = 63;
};
template <>
struct ScaleRange<double> {
  static constexpr int lo = -511, hi = 511;
};
template <>
struct ScaleRange<dd_real> {
  static constexpr int lo = -480, hi = 480;
};

/// The power-of-two exponent k by which A is scaled before the reduction (0 almost always):
/// the largest |re| or |im| of the lower triangle is brought to [1, 2) when it lies outside
/// [2^lo, 2^hi]. Exact scaling, so it is part of the canonical definition.
template <class T>
int scale_exponent_of_max(double amax) {
  if (amax == 0 || !(amax - amax == 0)) return 0;
  const int ex = std::ilogb(amax);
  using R = real_t<T>;
  if (ex > ScaleRange<R>::hi || ex < ScaleRange<R>::lo) return -ex;
  return 0;
}

template <class T>
int scale_exponent(index_t n, const T* A) {
  double amax = 0;
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i)
      amax = std::max(amax, to_double(abs1(A[i + j * n])));
  return scale_exponent_of_max<T>(amax);
}

template <class T>
void scale_lower(index_t n, T* A, int k) {
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      T& a = A[i + j * n];
      if constexpr (is_complex_v<T>)
        a = T(scale2(a.re, k), scale2(a.im, k));
      else
        a = scale2(a, k);
    }
}

template <class T>
void check_options(index_t n, const SolveOptions& opt) {
  check_subset(opt.subset, n);
  if (opt.reduction != Reduction::one_stage && (opt.band < 1 || opt.band > 1024))
    throw UsageError("--band-width must be in 1..1024");
  if (opt.reduction == Reduction::two_stage && opt.vectors &&
      opt.back_transform != BackTransformMethod::canonical)
    throw UsageError(std::string("--back-transform ") + back_transform_name(opt.back_transform) +
                     " applies to the one-stage reduction only (?ormtr has no form for the "
                     "two-stage reflectors); use --reduction one-stage or auto");
  if (opt.solver != TridiagSolver::bisection && !has_vendor_lapack_v<T>)
    throw UsageError(std::string("--tridiag-solver ") + tridiag_solver_name(opt.solver) +
                     " is not available for --precision dd (no LAPACK for double-double); "
                     "use bisection");
  if constexpr (has_vendor_lapack_v<T>) {
    // Before any work: LAPACK's divide and conquer counts its vector workspace in 32 bits.
    if (opt.solver == TridiagSolver::stedc && opt.vectors && n > lapack::stedc_vectors_max_order())
      throw UsageError("--tridiag-solver stedc with eigenvectors is limited to n <= " +
                       std::to_string(lapack::stedc_vectors_max_order()) + " (LAPACK's ?stedc " +
                       "counts its workspace of 1 + 4n + n^2 elements in a 32-bit integer); n = " +
                       std::to_string(n) + ": use bisection (the default) or stemr");
  }
  if (opt.vectors && opt.back_transform != BackTransformMethod::canonical &&
      !has_vendor_lapack_v<T>)
    throw UsageError(std::string("--back-transform ") + back_transform_name(opt.back_transform) +
                     " is not available for --precision dd (no LAPACK or cuSOLVER for "
                     "double-double); use canonical");
}

/// --back-transform cusolver runs on the GPU: with the CPU backend it is an error before any
/// work, never a silent CPU run.
void check_backend(const Context& ctx, const SolveOptions& opt) {
  if (opt.vectors && opt.back_transform == BackTransformMethod::cusolver &&
      ctx.backend != Backend::cuda)
    throw UsageError(
        "--back-transform cusolver needs --device cuda (cuSOLVER's ?ormtr runs on the GPU); use "
        "canonical or lapack with --device cpu");
}

template <class T>
TridiagOptions tridiag_options(const SolveOptions& opt) {
  TridiagOptions topt;
  topt.nb = opt.nb;
  topt.reflectors = opt.vectors;  // eigenvalues only: the reflectors need not come back
  if (opt.progress)
    topt.progress = [&opt](index_t done, index_t total) {
      opt.progress("tridiagonalize", total > 0 ? double(done) / double(total) : 1.0);
    };
  return topt;
}

void copy_gpu_times(const TridiagDeviceTimes& dt, StageTimes& t) {
  t.gpu_upload = dt.upload;
  t.gpu_symv = dt.symv;
  t.gpu_update = dt.update;
  t.gpu_transfers = dt.transfers;
  t.gpu_panels = dt.panels;
}

/// Whether a --device cuda solve with vectors keeps them on the device from the inverse iteration
/// to the end of the back-transformation (solver/vectors_cuda.hpp): bisection and the canonical
/// back-transformation (the bits of the host route); EIGSOLVE_GPU_RESIDENT=0 takes the host route
/// (Z of T and the reflectors through host memory), for A/B runs.
bool resident_vectors(const Context& ctx, const SolveOptions& opt) {
  if (ctx.backend != Backend::cuda || !opt.vectors || opt.solver != TridiagSolver::bisection ||
      opt.back_transform != BackTransformMethod::canonical)
    return false;
  const char* r = std::getenv("EIGSOLVE_GPU_RESIDENT");
  return !(r && r[0] == '0' && r[1] == '\0');
}

/// Where the two-stage reduction left its reflectors (eigenvectors): on the host (the CPU
/// backend) or on the device, and whether the device keeps Z too (resident_vectors).
template <class T>
struct TwoStageSource {
  const TwoStageReflectors<T>* host = nullptr;
  const TwoStageDeviceReflectors<T>* device = nullptr;
  bool resident = false;
};

/// Steps 2 and 3 of the pipeline on (d, e) and the reflectors in A (order n, ld n); with `dev`
/// (resident_vectors) the reflectors are the device's, A holding only the host's tail; with
/// `ts` the two-stage reduction's reflectors instead.
template <class T>
void finish_solve(const Context& ctx, const SolveOptions& opt, const SolveOptions& sopt, int sk,
                  index_t n, T* A, std::vector<real_t<T>>& d, std::vector<real_t<T>>& e,
                  std::vector<T>& tau, SolveResult<T>& res, CudaTridiagDevice<T>* dev = nullptr,
                  const TwoStageSource<T>& ts = {}) {
  using R = real_t<T>;
  const bool on_device = dev != nullptr || (ts.device != nullptr && ts.resident);
  // 2. Eigenvalues (and vectors) of T.
  auto t0 = Clock::now();
  std::vector<R> zt;
  double resident_bt = -1;  // seconds of the device back-transformation and download, if resident
  // Sign normalization and the finiteness check of columns [c0, c1) of res.z.
  std::atomic<bool> finite{true};
  const auto finish_columns = [&](const Context& c, index_t c0, index_t c1) {
    T* zc = res.z.data() + c0 * n;
    normalize_signs(c, n, c1 - c0, zc, n);
    parallel_for(c1 - c0, c.num_threads(), 16, [&](index_t jb, index_t je) {
      for (index_t k = jb * n; k < je * n && finite.load(std::memory_order_relaxed); ++k)
        if (!is_finite(zc[k])) finite = false;
    });
  };
  if (on_device) {
    SolveOptions vopt = sopt;
    vopt.vectors = false;
    index_t k0 = 0;
    tridiag_stage<T>(ctx, vopt, n, d, e, res.w, zt, &k0);
    index_t ldd = 0;
    const T* dA = nullptr;
    if (dev)
      dA = dev->device_reflectors(A, n, &ldd);
    else
      ldd = ts.device->ldda;
    VectorsDeviceTimes vt;
    // Each group of columns is sign-normalized and checked as soon as it is in res.z, while the
    // device still works on the later groups (8 threads: the device's driver keeps its cores).
    Context hctx = ctx;
    hctx.threads = std::min(8, ctx.num_threads());
    const std::function<void(index_t, index_t)> landed = [&](index_t c0, index_t c1) {
      finish_columns(hctx, c0, c1);
    };
    eigenvectors_cuda<T>(ctx, n, d.data(), e.data(), static_cast<index_t>(res.w.size()),
                         res.w.data(), k0, dA, ldd, dev ? tau.data() : nullptr, res.z, &vt, &landed,
                         dev ? nullptr : ts.device);
    report(opt, "eigenvectors", 1.0);
    resident_bt = vt.back_transform + vt.download;
    if (const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE"); pf && pf[0] == '1')
      std::fprintf(stderr,
                   "eigsolve vectors on the device (n = %lld, m = %lld): inverse iteration %.3f s "
                   "(%s; %lld columns back-transformed meanwhile), back-transformation %.3f s "
                   "after it, download %.3f s\n",
                   static_cast<long long>(n), static_cast<long long>(res.w.size()),
                   vt.inverse_iteration, vt.invit_on_device ? "device" : "host, uploaded",
                   static_cast<long long>(vt.early_columns), vt.back_transform, vt.download);
  } else {
    tridiag_stage<T>(ctx, sopt, n, d, e, res.w, zt);
  }
  res.m = static_cast<index_t>(res.w.size());
  for (R& x : res.w) {
    if (sk != 0) x = scale2(x, -sk);
    if (!is_finite(x))
      throw NumericalError(
          "eigenvalues are not finite: the matrix is beyond the range of --precision " +
          std::string(ScalarTraits<T>::name));
  }
  res.times.tridiag_eigen = seconds_since(t0);
  if (resident_bt >= 0) res.times.tridiag_eigen -= resident_bt;

  // 3. Back-transformation (unless the device did it already) and sign normalization.
  if (opt.vectors) {
    t0 = Clock::now();
    const index_t m = res.m;
    auto t1 = t0, t2 = t0;
    if (!on_device) {
      if constexpr (std::is_same_v<T, R>) {
        res.z = std::move(zt);
      } else {
        assign_zeros_parallel(res.z, static_cast<std::size_t>(n * m), ctx.num_threads());
        parallel_for(m, ctx.num_threads(), 16, [&](index_t jb, index_t je) {
          for (index_t k = jb * n; k < je * n; ++k)
            res.z[k] = T(zt[k]);
        });
      }
      zt.clear();
      zt.shrink_to_fit();
      t1 = Clock::now();
      if (ts.host)
        apply_q_two_stage(ctx, n, A, n, *ts.host, m, res.z.data(), n);
      else if (ts.device)
        apply_q_two_stage_cuda(*ts.device, m, res.z.data(), n);  // the same order, on the GPU
      else if (ctx.backend == Backend::cuda && opt.back_transform == BackTransformMethod::canonical)
        apply_q_canonical_cuda(n, A, n, tau.data(), m, res.z.data(), n);  // same order, on GPU
      else
        back_transform(ctx, n, A, n, tau.data(), m, res.z.data(), n, opt.back_transform);
      t2 = Clock::now();
    }
    if (!on_device) finish_columns(ctx, 0, m);  // else done per group as columns arrived
    if (!finite) throw NumericalError("eigenvectors are not finite (internal failure)");
    res.times.back_transform = (on_device ? resident_bt : 0.0) + seconds_since(t0);
    if (const char* pf = std::getenv("EIGSOLVE_GPU_PROFILE"); !on_device && pf && pf[0] == '1')
      std::fprintf(stderr,
                   "eigsolve vectors (n = %lld, m = %lld): conversion %.3f s, Q Z %.3f s, signs "
                   "and checks %.3f s\n",
                   static_cast<long long>(n), static_cast<long long>(m),
                   std::chrono::duration<double>(t1 - t0).count(),
                   std::chrono::duration<double>(t2 - t1).count(), seconds_since(t2));
    report(opt, "back-transform", 1.0);
  }
}

}  // namespace

template <class T>
SolveResult<T> eigensolve(const Context& ctx, HostMatrix<T>& A, const SolveOptions& opt) {
  using R = real_t<T>;
  const index_t n = A.n;
  if (static_cast<index_t>(A.data.size()) < n * n)
    throw DimensionError("eigensolve: matrix storage smaller than n*n");
  check_options<T>(n, opt);
  check_backend(ctx, opt);
  SolveResult<T> res;
  res.n = n;
  res.reduction = resolve_reduction(opt, n, ScalarTraits<T>::precision);
  if (n == 0) return res;

  // 0. Matrices near overflow or underflow are scaled by an exact power of two first (on the
  // GPU: decided from the device's maximum after the upload and applied to the device's copy,
  // which is what the reduction reads; the same exponent, so the same bits).
  int sk = 0;
  SolveOptions sopt = opt;
  const auto set_scale = [&](int k) {
    sk = k;
    if (k != 0) {
      sopt.subset.vl = std::scalbn(opt.subset.vl, k);
      sopt.subset.vu = std::scalbn(opt.subset.vu, k);
    }
  };
  if (ctx.backend != Backend::cuda) {
    set_scale(scale_exponent(n, A.ptr()));
    if (sk != 0) scale_lower(n, A.ptr(), sk);
  }

  // 1. Tridiagonalization.
  auto t0 = Clock::now();
  std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n), R(0));
  std::vector<T> tau(static_cast<std::size_t>(n), T(0));
  TridiagOptions topt = tridiag_options<T>(opt);
  const bool resident = resident_vectors(ctx, opt);
  if (resident) topt.reflectors = false;  // they stay on the device
  std::unique_ptr<CudaTridiagDevice<T>> dev;
  TridiagDeviceTimes dt;
  if (res.reduction == Reduction::two_stage) {
    const index_t b = index_t(opt.band);
    TwoStageSource<T> ts;
    TwoStageReflectors<T> refl;
    TwoStageDeviceReflectors<T> drefl;
    std::unique_ptr<TwoStageCuda<T>> dev2;
    if (ctx.backend == Backend::cuda) {
      // Both stages on the device (householder/two_stage_cuda.hpp), the CPU's bits; with
      // vectors the reflectors stay there for the back-transformation.
      TwoStageDeviceTimes tt;
      dev2 = make_two_stage_cuda<T>(n, b, A.ptr(), n, false, &tt, opt.vectors);
      set_scale(scale_exponent_of_max<T>(dev2->lower_absmax()));
      if (sk != 0) dev2->scale_lower(sk);
      dev2->run(b, d.data(), e.data());
      if (opt.vectors) {
        drefl = dev2->reflectors();
        ts.device = &drefl;
        ts.resident = resident;
      } else {
        dev2.reset();
      }
      res.times.gpu_upload = tt.upload;
      res.times.gpu_panels = tt.stage1 + tt.stage2;
    } else {
      tridiagonalize_two_stage(ctx, n, b, A.ptr(), n, d.data(), e.data(),
                               opt.vectors ? &refl : nullptr);
      if (opt.vectors) ts.host = &refl;
    }
    res.times.tridiagonalize = seconds_since(t0);
    report(opt, "tridiagonalize", 1.0);
    finish_solve<T>(ctx, opt, sopt, sk, n, A.ptr(), d, e, tau, res, nullptr, ts);
    return res;
  }
  if (ctx.backend == Backend::cuda) {
    // The panels on the GPU in the canonical order, the unblocked tail on the host: same bits.
    dev = make_cuda_tridiag<T>(n, A.ptr(), n, opt.nb, &dt);
    set_scale(scale_exponent_of_max<T>(dev->lower_absmax()));
    if (sk != 0) dev->scale_lower(sk);
    tridiagonalize(ctx, n, A.ptr(), n, d.data(), e.data(), tau.data(), topt, dev.get());
    if (!resident) dev.reset();
  } else {
    tridiagonalize(ctx, n, A.ptr(), n, d.data(), e.data(), tau.data(), topt);
  }
  res.times.tridiagonalize = seconds_since(t0);
  report(opt, "tridiagonalize", 1.0);
  finish_solve<T>(ctx, opt, sopt, sk, n, A.ptr(), d, e, tau, res, dev.get());
  dev.reset();
  if (ctx.backend == Backend::cuda) copy_gpu_times(dt, res.times);
  return res;
}

template <class T>
SolveResult<T> eigensolve_device(const Context& ctx, index_t n, const T* dA, index_t ldda,
                                 const SolveOptions& opt) {
  using R = real_t<T>;
  if (n < 0) throw DimensionError("eigensolve_device: n = " + std::to_string(n) + " < 0");
  check_options<T>(n, opt);
  SolveResult<T> res;
  res.n = n;
  res.reduction = resolve_reduction(opt, n, ScalarTraits<T>::precision);
  if (n == 0) return res;
  Context dctx = ctx;
  dctx.backend = Backend::cuda;
  if (res.reduction == Reduction::two_stage) {
    auto t0 = Clock::now();
    const index_t b = index_t(opt.band);
    TwoStageDeviceTimes tt;
    std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n), R(0));
    std::vector<T> tau;
    auto dev2 = make_two_stage_cuda<T>(n, b, dA, ldda, true, &tt, opt.vectors);
    int sk = scale_exponent_of_max<T>(dev2->lower_absmax());
    SolveOptions sopt = opt;
    if (sk != 0) {
      dev2->scale_lower(sk);
      sopt.subset.vl = std::scalbn(opt.subset.vl, sk);
      sopt.subset.vu = std::scalbn(opt.subset.vu, sk);
    }
    t0 = Clock::now();
    dev2->run(b, d.data(), e.data());
    TwoStageSource<T> ts;
    TwoStageDeviceReflectors<T> drefl;
    if (opt.vectors) {
      drefl = dev2->reflectors();
      ts.device = &drefl;
      ts.resident = resident_vectors(dctx, opt);
    } else {
      dev2.reset();
    }
    res.times.tridiagonalize = seconds_since(t0);
    res.times.gpu_upload = tt.upload;
    res.times.gpu_panels = tt.stage1 + tt.stage2;
    report(opt, "tridiagonalize", 1.0);
    finish_solve<T>(dctx, opt, sopt, sk, n, static_cast<T*>(nullptr), d, e, tau, res, nullptr, ts);
    return res;
  }
  auto t0 = Clock::now();
  TridiagDeviceTimes dt;
  std::vector<R> d(static_cast<std::size_t>(n)), e(static_cast<std::size_t>(n), R(0));
  std::vector<T> tau(static_cast<std::size_t>(n), T(0));
  // Host A: the unblocked tail (and with vectors the reflectors). Pages the device does not
  // send back are never touched, so an order-n buffer costs only what is used.
  std::unique_ptr<T, void (*)(void*)> A(
      static_cast<T*>(std::malloc(sizeof(T) * std::size_t(n) * std::size_t(n))), std::free);
  if (!A) throw OutOfMemory("eigensolve_device host matrix", std::uint64_t(sizeof(T)) * n * n);
  int sk = 0;
  SolveOptions sopt = opt;
  const bool resident = resident_vectors(dctx, opt);
  TridiagOptions topt = tridiag_options<T>(opt);
  if (resident) topt.reflectors = false;  // they stay on the device
  auto dev = make_cuda_tridiag_device<T>(n, dA, ldda, opt.nb, &dt);
  // 0. The same exact pre-scaling as eigensolve, decided from the device's maximum.
  sk = scale_exponent_of_max<T>(dev->lower_absmax());
  if (sk != 0) {
    dev->scale_lower(sk);
    sopt.subset.vl = std::scalbn(opt.subset.vl, sk);
    sopt.subset.vu = std::scalbn(opt.subset.vu, sk);
  }
  t0 = Clock::now();
  tridiagonalize(dctx, n, A.get(), n, d.data(), e.data(), tau.data(), topt, dev.get());
  if (!resident) dev.reset();
  res.times.tridiagonalize = seconds_since(t0);
  report(opt, "tridiagonalize", 1.0);
  finish_solve<T>(dctx, opt, sopt, sk, n, A.get(), d, e, tau, res, dev.get());
  dev.reset();
  copy_gpu_times(dt, res.times);
  return res;
}

#define EIGSOLVE_INSTANTIATE_EIGENSOLVE(T)                                                    \
  template SolveResult<T> eigensolve<T>(const Context&, HostMatrix<T>&, const SolveOptions&); \
  template SolveResult<T> eigensolve_device<T>(const Context&, index_t, const T*, index_t,    \
                                               const SolveOptions&);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_INSTANTIATE_EIGENSOLVE)
#undef EIGSOLVE_INSTANTIATE_EIGENSOLVE

}  // namespace eigsolve
