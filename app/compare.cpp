// `eigsolve compare A B [--rtol x]`: are two eigenvalue files bitwise identical, and if not, how
// far apart are they?
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "app/commands.hpp"
#include "core/dd_io.hpp"
#include "core/errors.hpp"
#include "io/matrix_io.hpp"

namespace eigsolve {
namespace {

/// Bitwise equality of two values read back (a dd pair's low parts compared as numbers: the
/// sign of a zero low part carries no information). -0 and +0 differ; NaNs of the same bits
/// are equal.
bool same_bits(const dd_real& x, const dd_real& y) {
  if (std::memcmp(&x.hi, &y.hi, sizeof x.hi) != 0) return false;
  return x.lo == y.lo || (std::isnan(x.lo) && std::isnan(y.lo));
}

/// Significant decimal digits of the longest number token in the text (a file written in dd
/// has 33+; float/double files at most 17).
int max_significant_digits(const std::string& text) {
  int best = 0;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    int count = 0;
    bool leading = true;
    for (char c : tok) {
      if (c == 'e' || c == 'E') break;
      if (c < '0' || c > '9') continue;
      if (c == '0' && leading) continue;
      leading = false;
      ++count;
    }
    best = std::max(best, count);
  }
  return best;
}

/// Distance in units in the last place between two doubles (0 for equal values).
std::uint64_t ulp_distance(double a, double b) {
  if (a == b) return 0;
  auto key = [](double x) {
    std::int64_t i;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? std::int64_t(0x8000000000000000ULL) - i : i;
  };
  std::int64_t ka = key(a), kb = key(b);
  return ka > kb ? std::uint64_t(ka - kb) : std::uint64_t(kb - ka);
}

}  // namespace

int run_compare(const CompareOptions& opt) {
  if (opt.a == "-" && opt.b == "-")
    throw UsageError("compare: only one of A and B can be '-' (standard input)");
  const std::string ta = read_text_file(opt.a), tb = read_text_file(opt.b);
  // Both files are read and checked, byte-identical ones too: a file that is not an
  // eigenvalue file is an error (exit 3), never "identical".
  std::vector<dd_real> a = parse_eigenvalues<dd_real>(opt.a, ta);
  std::vector<dd_real> b = parse_eigenvalues<dd_real>(opt.b, tb);
  auto say = [&](const char* fmt, auto... args) {
    if (!opt.quiet) std::fprintf(stdout, fmt, args...);
  };
  if (ta == tb) {
    say("identical: %s and %s are byte-identical\n", opt.a.c_str(), opt.b.c_str());
    return kExitOk;
  }
  if (a.size() != b.size()) {
    say("differ: %s has %zu eigenvalues, %s has %zu\n", opt.a.c_str(), a.size(), opt.b.c_str(),
        b.size());
    return kExitDiffer;
  }
  const bool dd_mode = std::max(max_significant_digits(ta), max_significant_digits(tb)) > 17;
  double max_abs = 0, max_rel = 0, scale = 0;
  std::uint64_t max_ulp = 0;
  double max_dd_ulp = 0;
  std::size_t ndiff = 0, nzero_sign = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max({scale, std::abs(to_double(a[i])), std::abs(to_double(b[i]))});
    if (same_bits(a[i], b[i])) continue;
    ++ndiff;
    if (a[i] == b[i]) ++nzero_sign;  // equal values, different bits: -0 and +0
    const double d = std::abs(to_double(a[i] - b[i]));
    const double m = std::max(std::abs(to_double(a[i])), std::abs(to_double(b[i])));
    max_abs = std::max(max_abs, d);
    if (m > 0) max_rel = std::max(max_rel, d / m);
    max_ulp = std::max(max_ulp, ulp_distance(to_double(a[i]), to_double(b[i])));
    if (m > 0) {
      // dd "ulp": 2^-105 relative to the leading part's binade
      int e;
      std::frexp(m, &e);
      max_dd_ulp = std::max(max_dd_ulp, d / std::ldexp(1.0, e - 106));
    }
  }
  if (ndiff == 0) {
    say("identical: %s and %s hold the same %zu value%s (formatting differs)\n", opt.a.c_str(),
        opt.b.c_str(), a.size(), a.size() == 1 ? "" : "s");
    return kExitOk;
  }
  const double normwise = scale > 0 ? max_abs / scale : max_abs;
  say("differ: %zu of %zu eigenvalues\n", ndiff, a.size());
  if (nzero_sign > 0) say("  %zu of them only in the sign of a zero (-0 and +0)\n", nzero_sign);
  say("  max abs difference  %.6e\n", max_abs);
  say("  max rel difference  %.6e (elementwise), %.6e (relative to max |lambda|)\n", max_rel,
      normwise);
  if (dd_mode)
    say("  max distance        %.3g dd ulps (2^-105 relative)\n", max_dd_ulp);
  else
    say("  max ULP distance    %llu (double ulps)\n", static_cast<unsigned long long>(max_ulp));
  if (opt.rtol >= 0) {
    if (normwise <= opt.rtol) {
      say("within --rtol %.3e: max |a_i - b_i| <= rtol * max |lambda|\n", opt.rtol);
      return kExitOk;
    }
    say("not within --rtol %.3e\n", opt.rtol);
  }
  return kExitDiffer;
}

}  // namespace eigsolve
