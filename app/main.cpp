// The eigsolve command line. The only place that catches exceptions: it prints one line and
// exits with the documented code (README "Exit codes").
#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "bench/gpu/tools.hpp"
#include "core/context.hpp"
#include "core/dd_real.hpp"
#include "core/errors.hpp"
#include "solver/eigensolve.hpp"

namespace po = boost::program_options;
using namespace eigsolve;

namespace {

const char* kExitCodes =
    "Exit codes:\n"
    "  0  success (compare: identical, or within --rtol)\n"
    "  1  compare: the eigenvalues differ\n"
    "  2  usage error (bad option or value)\n"
    "  3  invalid or unreadable input file (the message names file:line)\n"
    "  4  numerical failure (no convergence, LAPACK error)\n"
    "  5  device error (no CUDA device, CUDA/cuBLAS/cuSOLVER error, backend not compiled)\n"
    "  6  an output file could not be written (nothing partial is left behind)\n"
    "  7  out of memory\n"
    " 70  internal error (a bug: please report it)\n";

void print_usage(std::ostream& os, const po::options_description& desc) {
  os << "eigsolve " EIGSOLVE_VERSION
        " - dense symmetric/Hermitian eigenvalues, reproducible to the bit\n\n"
        "Usage:\n"
        "  eigsolve FILE [options]          solve (FILE: Matrix Market .mtx or NumPy .npy)\n"
        "  eigsolve compare A B [--rtol X]  compare two eigenvalue files\n"
        "  eigsolve generate KIND --n N -o FILE [options]   write a test matrix\n"
        "  eigsolve devices                 list CUDA devices\n"
        "  eigsolve bench symv [options]    GPU SYMV/HEMV against cuBLAS (--help for options)\n"
        "  eigsolve bench eig [options]     GPU eigenvalues against cuSOLVER ?syevd/?heevd\n"
        "  eigsolve tune symv [options]     measure the SYMV tuning table on this GPU\n\n"
     << desc << "\n"
     << kExitCodes;
}

int main_solve(int argc, char** argv) {
  SolveCliOptions o;
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("version", "print the version")(
      "precision,p", po::value(&o.precision)->default_value("auto"),
      "s | d | c | z | dd (auto: d for real files, z for complex files)")(
      "device", po::value(&o.device)->default_value("auto"),
      "auto | cpu | cuda (auto: the GPU when one is present, else the CPU; the same bits; cuda "
      "without a GPU is an error)")("vectors,v", po::bool_switch(&o.vectors),
                                    "compute eigenvectors (and report residuals)")(
      "output,o", po::value(&o.output),
      "eigenvalue file, one per line ascending ('-' or none: stdout)")(
      "vectors-output", po::value(&o.vectors_output),
      "eigenvector file (.mtx array or .npy by extension); implies --vectors")(
      "report", po::value(&o.report), "write a JSON report (timings, digest, residuals)")(
      "no-residuals", po::bool_switch(&o.no_residuals),
      "with eigenvectors: skip the residual and orthogonality check (a fifth to a third of a "
      "--vectors run's time on the CPU, and the copy of A it keeps)")(
      "threads,t", po::value(&o.threads)->default_value(0),
      "CPU threads (0 = all); results are identical for every count")(
      "index-range", po::value(&o.index_range), "only eigenvalues FROM:TO (1-based, inclusive)")(
      "value-range", po::value(&o.value_range), "only eigenvalues in the interval (A, B]")(
      "tridiag-solver", po::value(&o.tridiag_solver)->default_value("bisection"),
      "bisection (canonical, all precisions) | sterf | stedc | stemr (LAPACK; s/d/c/z)")(
      "back-transform", po::value(&o.back_transform)->default_value("canonical"),
      "eigenvectors: canonical (default; bitwise the same everywhere) | lapack (?ormtr/?unmtr, "
      "s/d/c/z; bits depend on the CPU, not in the reproducibility contract) | cusolver "
      "(cuSOLVER's ?ormtr/?unmtr, --device cuda, s/d/c/z; bits depend on the GPU, not in the "
      "contract)")("panel-width", po::value(&o.nb)->default_value(32),
                   "tridiagonalization panel width (part of the options the bits depend on)")(
      "reduction", po::value(&o.reduction)->default_value("auto"),
      ("auto (default: two-stage in s and d at every n, with or without --vectors; for "
       "eigenvalues only two-stage from n = " +
       std::to_string(two_stage_min_order(Precision::c)) + " in c, " +
       std::to_string(two_stage_min_order(Precision::z)) + " in z, " +
       std::to_string(two_stage_min_order(Precision::dd)) +
       " in dd; one-stage otherwise) | one-stage "
       "| two-stage (full -> band -> tridiagonal: a second canonical order, its own bits, the "
       "same on CPU and GPU; the faster one from the orders above)")
          .c_str())("band-width", po::value(&o.band)->default_value(32),
                    "two-stage: the band's half-width (the bits depend on it)")(
      "quiet,q", po::bool_switch(&o.quiet), "no summary or progress on stderr");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&o.input));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    print_usage(std::cout, desc);
    return kExitOk;
  }
  if (vm.count("version")) {
    // The dd madd's sum (CMake EIGSOLVE_DD_SLOPPY_MADD, docs/dd.md): the two give other dd bits.
    std::cout << "eigsolve " EIGSOLVE_VERSION << (cuda_compiled() ? " (cuda" : " (cpu only")
              << ", dd madd: " << dd_madd_name() << ")\n";
    return kExitOk;
  }
  po::notify(vm);
  for (const char* name : {"output", "vectors-output", "report"}) {
    if (vm.count(name) && vm[name].as<std::string>().empty())
      throw UsageError(std::string("--") + name + ": empty file name ('-' is standard output)");
  }
  if (o.input.empty()) {
    print_usage(std::cerr, desc);
    return kExitUsage;
  }
  return run_solve(o);
}

int main_compare(int argc, char** argv) {
  CompareOptions o;
  po::options_description desc("compare options");
  desc.add_options()("help,h", "show this help")(
      "rtol", po::value(&o.rtol), "accept when max|a_i - b_i| <= rtol * max|lambda|")(
      "quiet,q", po::bool_switch(&o.quiet), "print nothing; the exit code tells");
  po::options_description hidden;
  std::vector<std::string> files;
  hidden.add_options()("files", po::value(&files));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("files", 2);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << "Usage: eigsolve compare A B [--rtol X] [--quiet]\n"
                 "Exit 0 when A and B hold bitwise identical eigenvalues (or are within --rtol),\n"
                 "1 when they differ, 3 when a file cannot be read.\n\n"
              << desc;
    return kExitOk;
  }
  po::notify(vm);
  if (files.size() != 2) throw UsageError("compare needs two eigenvalue files");
  if (vm.count("rtol") && !(o.rtol >= 0)) throw UsageError("--rtol must be >= 0");
  o.a = files[0];
  o.b = files[1];
  return run_compare(o);
}

int main_generate(int argc, char** argv) {
  GenerateOptions o;
  long long n = 0;
  unsigned long long seed = 1;
  po::options_description desc("generate options");
  desc.add_options()("help,h", "show this help")("n", po::value(&n), "matrix order")(
      "output,o", po::value(&o.output),
      "output file: NumPy for a name ending in .npy (any case), else Matrix Market")(
      "spectrum", po::value(&o.spectrum)->default_value("clustered"),
      "hadamard: clustered | linear | wide (small integers: A is exact)")(
      "complex", po::bool_switch(&o.complex), "hadamard, random: a complex Hermitian matrix")(
      "seed", po::value(&seed)->default_value(1), "random: generator seed (mt19937_64)")(
      "eigenvalues-output", po::value(&o.eigenvalues_output),
      "write the known spectrum (hadamard, laplace1d, kac)");
  po::options_description hidden;
  hidden.add_options()("kind", po::value(&o.kind));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("kind", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  if (!vm.count("help")) po::notify(vm);
  if (vm.count("help") || o.kind.empty()) {
    (o.kind.empty() && !vm.count("help") ? std::cerr : std::cout)
        << "Usage: eigsolve generate KIND --n N -o FILE [options]\n"
           "Kinds:\n"
           "  hadamard   A = H diag(lambda) H^T / n, n a power of two, exact spectrum lambda\n"
           "  random     symmetric (or --complex Hermitian) with entries uniform in [-1, 1)\n"
           "  laplace1d  tridiag(-1, 2, -1), lambda_k = 2 - 2 cos(k pi / (n + 1))\n"
           "  kac        Kac/Clement matrix, eigenvalues -(n-1), -(n-3), ..., n-1\n"
           "  wilkinson  Wilkinson's W+ (close eigenvalue pairs)\n\n"
        << desc;
    return vm.count("help") ? kExitOk : kExitUsage;
  }
  if (!vm["spectrum"].defaulted() && o.kind != "hadamard")
    throw UsageError("generate " + o.kind + ": --spectrum applies to hadamard only");
  if (!vm["seed"].defaulted() && o.kind != "random")
    throw UsageError("generate " + o.kind + ": --seed applies to random only");
  o.n = n;
  o.seed = seed;
  return run_generate(o);
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd = argc > 1 ? argv[1] : "";
  try {
    if (cmd == "compare") return main_compare(argc - 1, argv + 1);
    if (cmd == "generate") return main_generate(argc - 1, argv + 1);
    if (cmd == "bench" || cmd == "tune") {
      const std::string what = argc > 2 ? argv[2] : "";
      if (what == "eig" && cmd == "bench") return main_bench_eig(argc - 2, argv + 2);
      if (what == "symv")
        return cmd == "bench" ? main_bench_symv(argc - 2, argv + 2)
                              : main_tune_symv(argc - 2, argv + 2);
      throw UsageError("eigsolve " + cmd +
                       " needs what to measure: " + (cmd == "bench" ? "symv or eig" : "symv"));
    }
    if (cmd == "devices") {
      // What there is, and what --device auto would use (cuda without a device stays an error).
      if (!cuda_compiled()) {
        std::cout << "no CUDA backend in this build: --device auto uses the CPU\n";
        throw NotCompiled("cuda");
      }
      int count = cuda_device_count();
      if (count == 0) {
        std::cout << "no CUDA device: --device auto uses the CPU\n";
        throw DeviceError("no CUDA device is visible");
      }
      for (int i = 0; i < count; ++i)
        std::cout << i << ": " << cuda_device_description(i) << "\n";
      std::cout << "--device auto uses device 0\n";
      return kExitOk;
    }
    return main_solve(argc, argv);
  } catch (const po::error& e) {
    std::cerr << "eigsolve: " << e.what() << " (see eigsolve --help)\n";
    return kExitUsage;
  } catch (const Error& e) {
    std::cerr << "eigsolve: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr << "eigsolve: error: out of memory\n";
    return kExitMemory;
  } catch (const std::exception& e) {
    std::cerr << "eigsolve: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
