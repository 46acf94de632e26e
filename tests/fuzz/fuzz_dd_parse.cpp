// libFuzzer target: the dd decimal parser (core/dd_io.hpp, parse_dd) against MPFR, and the
// printers (dd_to_string, dd_to_string_roundtrip) for round trips.
//
// Reference: the grammar of core/dd_io.hpp checked by hand, the value by MPFR at a precision
// far beyond the input's digits: hi = RN(x), lo = RN(x - hi); parse_dd must accept exactly the
// strings of the grammar whose hi is finite, with hi bit for bit and lo as a number.
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "core/dd_io.hpp"
#include "fuzz_common.hpp"

using namespace eigsolve;

namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

/// [+|-] (digits | digits . | . digits | digits . digits) [(e|E|d|D) [+|-] digits]; the
/// string MPFR reads (exponent marker 'e') goes to `c`.
bool grammar(std::string_view s, std::string& c) {
  std::size_t k = 0;
  c.clear();
  if (k < s.size() && (s[k] == '+' || s[k] == '-')) c += s[k++];
  std::size_t nd = 0;
  while (k < s.size() && digit(s[k]))
    c += s[k++], ++nd;
  if (k < s.size() && s[k] == '.') {
    c += s[k++];
    while (k < s.size() && digit(s[k]))
      c += s[k++], ++nd;
  }
  if (nd == 0) return false;
  if (k == s.size()) return true;
  if (s[k] != 'e' && s[k] != 'E' && s[k] != 'd' && s[k] != 'D') return false;
  c += 'e';
  ++k;
  if (k < s.size() && (s[k] == '+' || s[k] == '-')) c += s[k++];
  const std::size_t e0 = k;
  while (k < s.size() && digit(s[k]))
    c += s[k++];
  return k > e0 && k == s.size();
}

std::string show(std::string_view s) {
  std::string r;
  for (char ch : s.substr(0, 120)) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (u >= 0x20 && u < 0x7f) {
      r += ch;
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", u);
      r += b;
    }
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view s(reinterpret_cast<const char*>(data), size);
  dd_real got(1.5, 0.0);
  const bool ok = parse_dd(s, got);
  std::string c;
  if (!grammar(s, c)) {
    if (ok) fuzz::finding("parse_dd accepted a string outside the grammar: '" + show(s) + "'");
    return 0;
  }
  // The exact value, far more precisely than any input needs (the input's digits). Exponents
  // beyond +-10^6 are decided here (MPFR's own exponent range is smaller): with at most a few
  // hundred digits such a value is 0 or overflows.
  const bool neg = !c.empty() && c[0] == '-';
  const bool zero_mantissa = c.find_first_of("123456789") == std::string::npos ||
                             c.find_first_of("123456789") > c.find('e');
  const std::size_t epos = c.find('e');
  long long ex = 0;
  if (epos != std::string::npos) {
    std::size_t k = epos + 1;
    const bool eneg = k < c.size() && c[k] == '-';
    if (k < c.size() && (c[k] == '+' || c[k] == '-')) ++k;
    for (; k < c.size(); ++k)
      ex = std::min<long long>(ex * 10 + (c[k] - '0'), 1000000000LL);
    if (eneg) ex = -ex;
  }
  double hi, lo0;
  if (zero_mantissa || ex < -1000000) {
    hi = neg ? -0.0 : 0.0, lo0 = 0.0;
  } else if (ex > 1000000) {
    hi = HUGE_VAL, lo0 = 0.0;
  } else {
    mpfr_t x, r;
    const mpfr_prec_t prec = static_cast<mpfr_prec_t>(400 + 14 * size);
    mpfr_init2(x, prec);
    mpfr_init2(r, prec);
    mpfr_strtofr(x, c.c_str(), nullptr, 10, MPFR_RNDN);
    hi = mpfr_get_d(x, MPFR_RNDN);
    mpfr_sub_d(r, x, hi, MPFR_RNDN);  // exact: x and hi are within half an ulp of hi
    lo0 = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_clear(r);
  }
  // docs/dd.md: then (hi, lo) = Fast2Sum(hi, lo) (changes the pair only when hi + lo is exactly
  // a midpoint between two doubles; the value stays), a zero hi keeps its sign.
  double hi2 = hi + lo0;
  const double lo = lo0 - (hi2 - hi);
  if (hi2 == 0.0) hi2 = hi;
  if (!std::isfinite(hi)) {
    if (ok) fuzz::finding("parse_dd accepted an overflowing value: '" + show(s) + "'");
    return 0;
  }
  if (!ok) fuzz::finding("parse_dd rejected a valid number: '" + show(s) + "'");
  if (std::memcmp(&got.hi, &hi2, sizeof hi2) != 0 || !(got.lo == lo)) {
    char b[160];
    std::snprintf(b, sizeof b, " gave (%a, %a), MPFR (%a, %a)", got.hi, got.lo, hi2, lo);
    fuzz::finding("parse_dd('" + show(s) + "')" + b);
  }
  // Round trips of the printers.
  const std::string t = dd_to_string_roundtrip(got);
  dd_real back;
  if (!parse_dd(t, back) || std::memcmp(&back.hi, &got.hi, sizeof hi) != 0 || !(back.lo == got.lo))
    fuzz::finding("dd_to_string_roundtrip('" + show(s) + "') = '" + t + "' does not read back");
  const int digits = 1 + static_cast<int>(size % 40);
  const std::string u = dd_to_string(got, digits);
  dd_real v;
  if (!parse_dd(u, v) && std::isfinite(got.hi) && std::fabs(got.hi) < 1e308)
    fuzz::finding("dd_to_string(" + std::to_string(digits) + ") gave unreadable '" + u + "'");
  return 0;
}
