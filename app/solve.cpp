// `eigsolve FILE ...`: read, solve, write, report.
#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/digest.hpp"
#include "app/output_checks.hpp"
#include "app/progress.hpp"
#include "app/range_options.hpp"
#include "app/residuals.hpp"
#include "core/dd_real.hpp"
#include "core/errors.hpp"
#include "io/matrix_io.hpp"
#include "solver/eigensolve.hpp"

namespace eigsolve {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A shortest round-trip decimal (format_real) as a JSON number: for float and double it is
/// the value (a float's shortest text is read back as the double nearest to it, which prints
/// the same digits); for dd it is the double nearest to the value.
double json_number(const std::string& digits) {
  return std::strtod(digits.c_str(), nullptr);
}

/// Two outputs on one file or both on standard output are usage errors (app/output_checks.hpp).
void check_distinct_outputs(const SolveCliOptions& opt) {
  std::vector<NamedOutput> outs{{"-o", opt.output.empty() ? std::string("-") : opt.output}};
  if (!opt.vectors_output.empty()) outs.push_back({"--vectors-output", opt.vectors_output});
  if (!opt.report.empty()) outs.push_back({"--report", opt.report});
  eigsolve::check_distinct_outputs(outs, " (-o is standard output when not given)");
}

/// One line on stderr when nonzero input values became zero in the chosen precision (README,
/// "Usage"). Printed with --quiet too: a warning is not the summary; the exit code stays 0.
template <class R>
void warn_underflows(const std::string& input, const MatrixFileInfo& ri, Precision prec) {
  if (ri.underflows == 0) return;
  const char* type = std::is_same<R, float>::value    ? "float"
                     : std::is_same<R, double>::value ? "double"
                                                      : "dd_real";
  std::string where;
  if (ri.underflow_line > 0) {
    where = "at line " + std::to_string(ri.underflow_line) + " (entry (" +
            std::to_string(ri.underflow_row) + ", " + std::to_string(ri.underflow_col) + "))";
  } else {
    where = "is element (" + std::to_string(ri.underflow_row) + ", " +
            std::to_string(ri.underflow_col) + ")";
  }
  const char* wider = prec == Precision::s   ? "; --precision d keeps them"
                      : prec == Precision::c ? "; --precision z keeps them"
                                             : "";
  std::fprintf(stderr,
               "eigsolve: warning: %s: %lld nonzero value%s underflowed to zero in %s (the chosen "
               "precision %s); the first %s%s\n",
               input.c_str(), static_cast<long long>(ri.underflows), ri.underflows == 1 ? "" : "s",
               type, precision_name(prec), where.c_str(), wider);
}

template <class T>
int solve_typed(const SolveCliOptions& opt, Precision prec, const Context& ctx,
                const MatrixFileInfo& info) {
  using R = real_t<T>;
  const auto t_total = Clock::now();
  ProgressBar bar(!opt.quiet);

  // Every output is checked before the (possibly long) read and solve: a wrong path fails at
  // once, and nothing is written when one of the outputs cannot be.
  check_output_path(opt.output.empty() ? std::string("-") : opt.output);
  if (!opt.vectors_output.empty()) check_dense_output<T>(opt.vectors_output);
  if (!opt.report.empty()) check_output_path(opt.report);

  auto t0 = Clock::now();
  bar.update("reading", 0.0);
  // the probe's info plus what only the reader knows (duplicates, underflows)
  MatrixFileInfo read_info;
  HostMatrix<T> A = read_matrix<T>(opt.input, &read_info);
  const double t_read = seconds_since(t0);
  bar.clear();
  warn_underflows<R>(opt.input, read_info, prec);
  const index_t n = A.n;

  SolveOptions so;
  so.solver = parse_tridiag_solver(opt.tridiag_solver);
  so.vectors = opt.vectors || !opt.vectors_output.empty();
  so.subset = parse_subset(opt.index_range, opt.value_range, n);
  so.nb = opt.nb;
  so.reduction = parse_reduction(opt.reduction);
  so.band = opt.band;
  so.back_transform = parse_back_transform(opt.back_transform.c_str());
  so.progress = [&bar](const char* stage, double f) { bar.update(stage, f); };

  // eigensolve overwrites A; the residuals need the original
  const bool check = so.vectors && !opt.no_residuals;
  HostMatrix<T> A_copy;
  if (check) A_copy = A;
  SolveResult<T> res = eigensolve<T>(ctx, A, so);

  Residuals resid;
  double t_resid = 0;
  if (check) {
    bar.update("residuals", 0.0);
    t0 = Clock::now();
    resid = compute_residuals<T>(ctx, A_copy, res);
    t_resid = seconds_since(t0);
  }

  // All or nothing where the outputs are regular files (docs/formats.md, "Outputs"): each is
  // written to its temporary, and only publish() renames them, once every one is complete; a
  // failure before that unwinds through `outs`, which removes the temporaries. Streams cannot
  // be staged: they are written after the regular files among -o and --vectors-output are
  // complete, the report last.
  t0 = Clock::now();
  OutputSet outs;
  outs.eigenvalues<R>(opt.output.empty() ? std::string("-") : opt.output, res.w);
  if (!opt.vectors_output.empty())
    outs.dense<T>(opt.vectors_output, res.n, res.m, res.z.data(), res.n);
  outs.write_streams();
  const double t_write = seconds_since(t0);
  const std::string digest = eigenvalue_digest(res.w);
  const double t_all = seconds_since(t_total);
  bar.clear();

  const char* pname = precision_name(prec);
  const std::string wmin = res.w.empty() ? "-" : format_real(res.w.front());
  const std::string wmax = res.w.empty() ? "-" : format_real(res.w.back());
  if (!opt.quiet) {
    std::fprintf(stderr, "eigsolve: %s  n = %lld  precision %s%s  device %s  threads %d\n",
                 opt.input.c_str(), static_cast<long long>(n), pname,
                 prec == Precision::dd && !kDdSloppyMadd ? " (accurate madd)" : "",
                 backend_name(ctx.backend), ctx.num_threads());
    if (ctx.backend == Backend::cuda) {
      // Whole panels on the device: one event pair around all of them; the SYMV and rank-2k
      // parts are measured only with EIGSOLVE_GPU_PROFILE=1 (events around every step).
      const StageTimes& t = res.times;
      const bool panels = t.gpu_panels > 0;
      char part[160] = "";
      if (panels && t.gpu_symv > 0)
        std::snprintf(part, sizeof part, " (of which SYMV %.3f s, rank-2k %.3f s)", t.gpu_symv,
                      t.gpu_update);
      const bool bisect = so.solver == TridiagSolver::bisection;
      const bool bt = so.vectors && so.back_transform != BackTransformMethod::lapack;
      std::fprintf(stderr,
                   "  gpu: %s%s; upload %.3f s, panels and updates on the device %.3f s%s, "
                   "transfers %.3f s; %s%s\n",
                   cuda_device_description(0).c_str(),
                   opt.device == "auto" ? " (picked by --device auto)" : "", t.gpu_upload,
                   panels ? t.gpu_panels : t.gpu_symv + t.gpu_update, part, t.gpu_transfers,
                   bisect ? "bisection on the device" : "tridiagonal solver on the host",
                   !bt ? ""
                   : so.back_transform == BackTransformMethod::cusolver
                       ? ", back-transformation by cuSOLVER's ?ormtr on the device"
                       : ", back-transformation on the device");
    }
    if (res.reduction == Reduction::two_stage)
      std::fprintf(stderr,
                   "  reduction: two-stage%s, band half-width %d (its own canonical order and "
                   "bits)\n",
                   so.reduction == Reduction::automatic ? " (picked by --reduction auto)" : "",
                   so.band);
    if (read_info.duplicates > 0)
      std::fprintf(stderr, "  input: %lld duplicate entries summed into earlier ones (same i, j)\n",
                   static_cast<long long>(read_info.duplicates));
    char extra[128] = "";
    if (check)
      std::snprintf(extra, sizeof extra, ", back-transform %.3f s, residuals %.3f s",
                    res.times.back_transform, t_resid);
    else if (so.vectors)
      std::snprintf(extra, sizeof extra, ", back-transform %.3f s", res.times.back_transform);
    std::fprintf(stderr,
                 "  time: read %.3f s, tridiagonalize %.3f s, eigenvalues%s %.3f s (%s)%s, "
                 "write %.3f s, total %.3f s\n",
                 t_read, res.times.tridiagonalize, so.vectors ? "+vectors" : "",
                 res.times.tridiag_eigen, tridiag_solver_name(so.solver), extra, t_write, t_all);
    std::fprintf(stderr, "  eigenvalues: %lld, min %s, max %s\n",
                 static_cast<long long>(res.w.size()), wmin.c_str(), wmax.c_str());
    if (check)
      std::fprintf(stderr, "  residuals: ||AZ - ZL||/(n||A||) = %.3e, ||I - Z^H Z||/n = %.3e\n",
                   resid.backward, resid.orthogonality);
    else if (so.vectors)
      std::fprintf(stderr, "  residuals: not computed (--no-residuals)\n");
    std::fprintf(stderr, "  digest: sha256:%s\n", digest.c_str());
  }

  if (!opt.report.empty()) {
    using Json = nlohmann::ordered_json;  // keys in the order written
    Json j;
    j["tool"] = "eigsolve";
    j["version"] = EIGSOLVE_VERSION;
    j["input"] = opt.input;
    j["format"] = info.format;
    j["field"] = info.field;
    j["symmetry"] = info.symmetry;
    if (read_info.duplicates > 0)  // coordinate entries summed (docs/formats.md)
      j["duplicates_summed"] = static_cast<long long>(read_info.duplicates);
    if (read_info.underflows > 0)  // nonzero values that became zero (the warning)
      j["input_underflows"] = static_cast<long long>(read_info.underflows);
    j["n"] = static_cast<long long>(n);
    j["precision"] = pname;
    if (prec == Precision::dd)  // the dd madd's sum (docs/dd.md; a build option)
      j["dd_madd"] = dd_madd_name();
    j["device"] = backend_name(ctx.backend);
    if (ctx.backend == Backend::cuda) j["gpu"] = cuda_device_description(0);
    j["threads"] = ctx.num_threads();
    j["tridiag_solver"] = tridiag_solver_name(so.solver);
    j["panel_width"] = so.nb;
    j["reduction"] = reduction_name(res.reduction);  // the one used (auto resolved)
    if (res.reduction == Reduction::two_stage) j["band_width"] = so.band;
    j["vectors"] = so.vectors;
    if (so.vectors) j["back_transform"] = back_transform_name(so.back_transform);
    Json subset;
    if (so.subset.kind == Subset::Kind::index) {
      subset["kind"] = "index";
      subset["from"] = static_cast<long long>(so.subset.il + 1);
      subset["to"] = static_cast<long long>(so.subset.iu + 1);
    } else if (so.subset.kind == Subset::Kind::value) {
      subset["kind"] = "value";
      subset["lower_exclusive"] = so.subset.vl;
      subset["upper_inclusive"] = so.subset.vu;
    } else {
      subset["kind"] = "all";
    }
    j["subset"] = subset;
    j["seconds"] = {{"read", t_read},
                    {"tridiagonalize", res.times.tridiagonalize},
                    {"gpu_upload", res.times.gpu_upload},
                    {"gpu_symv", res.times.gpu_symv},
                    {"gpu_rank2k_update", res.times.gpu_update},
                    {"gpu_panels", res.times.gpu_panels},
                    {"gpu_column_transfers", res.times.gpu_transfers},
                    {"tridiag_eigen", res.times.tridiag_eigen},
                    {"back_transform", res.times.back_transform},
                    {"residuals", t_resid},
                    {"write", t_write},
                    {"total", t_all}};
    Json eig;
    eig["count"] = static_cast<long long>(res.w.size());
    if (!res.w.empty()) {
      eig["min"] = json_number(wmin);
      eig["max"] = json_number(wmax);
      if (std::is_same<R, dd_real>::value) {  // all 34 digits: a JSON number is read as a double
        eig["min_dd"] = wmin;
        eig["max_dd"] = wmax;
      }
    }
    eig["digest"] = "sha256:" + digest;
    eig["digest_definition"] =
        "SHA-256 of the little-endian IEEE bytes of the ascending eigenvalues (dd: hi then lo)";
    j["eigenvalues"] = eig;
    if (check)
      j["residuals"] = {{"backward", resid.backward}, {"orthogonality", resid.orthogonality}};
    Json outputs;
    outputs["eigenvalues"] = opt.output.empty() ? std::string("-") : opt.output;
    if (!opt.vectors_output.empty()) outputs["vectors"] = opt.vectors_output;
    j["outputs"] = outputs;
    // Non-finite numbers are written as null; bytes of a path that are not UTF-8 become U+FFFD.
    outs.text(opt.report, j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  }
  outs.publish();
  return kExitOk;
}

}  // namespace

int run_solve(const SolveCliOptions& given) {
  if (given.input.empty()) throw UsageError("no input file (usage: eigsolve FILE [options])");
  SolveCliOptions opt = given;
  if (opt.input == "-") opt.input = "/dev/stdin";  // read once, probe included (io/ keeps it)
  if (opt.threads < 0) throw UsageError("--threads must be >= 0 (0 = all hardware threads)");
  if (opt.nb < 1 || opt.nb > 1024) throw UsageError("--panel-width must be in 1..1024");
  parse_tridiag_solver(opt.tridiag_solver);  // validate before reading a large file
  const Reduction reduction = parse_reduction(opt.reduction);
  if (reduction != Reduction::one_stage && (opt.band < 1 || opt.band > 1024))
    throw UsageError("--band-width must be in 1..1024");
  parse_back_transform(opt.back_transform.c_str());
  // The range options' syntax too (FROM <= TO <= n is checked again once n is known).
  parse_subset(opt.index_range, opt.value_range, std::numeric_limits<index_t>::max());
  check_distinct_outputs(opt);

  Context ctx;
  ctx.threads = opt.threads;
  // --threads bounds every pool we use: ours (ctx), the reader's OpenMP regions and OpenBLAS.
  omp_set_num_threads(ctx.num_threads());
  openblas_set_num_threads(ctx.num_threads());
  if (opt.device == "cuda") {
    if (!cuda_compiled()) throw NotCompiled("cuda");
    if (cuda_device_count() == 0)
      throw DeviceError("--device cuda: no CUDA device is visible (nvidia-smi lists none?)");
    ctx.backend = Backend::cuda;
  } else if (opt.device == "auto") {
    // The GPU whenever one is present (same bits either way); the summary says which.
    ctx.backend = cuda_compiled() && cuda_device_count() > 0 ? Backend::cuda : Backend::cpu;
  } else if (opt.device == "cpu") {
    ctx.backend = Backend::cpu;
  } else {
    throw UsageError("--device must be auto, cpu or cuda (got '" + opt.device + "')");
  }

  MatrixFileInfo info = probe_matrix_file(opt.input);
  Precision prec;
  if (opt.precision == "auto") {
    prec = info.is_complex() ? Precision::z : Precision::d;
  } else {
    prec = parse_precision(opt.precision);
    if (info.is_complex() && !is_complex_precision(prec))
      throw InputError(opt.input, 0,
                       "the matrix is complex but --precision " + opt.precision +
                           " is real; use --precision c or z");
  }
  return dispatch(prec, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return solve_typed<T>(opt, prec, ctx, info);
  });
}

}  // namespace eigsolve
