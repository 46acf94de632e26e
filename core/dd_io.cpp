// Decimal conversions of dd_real: see dd_io.hpp and docs/dd.md.
#include "core/dd_io.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/errors.hpp"

namespace eigsolve {
namespace {

/// RAII mpz_t.
struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  ~Z() { mpz_clear(v); }
  Z(const Z&) = delete;
  Z& operator=(const Z&) = delete;
};

/// The exact powers of ten 10^0 .. 10^22 (all representable in binary64).
constexpr double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/// RN(num / den) as a double (ties to even, gradual underflow, +-inf on overflow); den > 0.
double rn_ratio(const mpz_t num, const mpz_t den) {
  const int sgn = mpz_sgn(num);
  if (sgn == 0) return 0.0;
  Z a, t;
  mpz_abs(a.v, num);
  // e = floor(log2(|num| / den)).
  long e = static_cast<long>(mpz_sizeinbase(a.v, 2)) - static_cast<long>(mpz_sizeinbase(den, 2));
  if (e > 1100) return sgn < 0 ? -HUGE_VAL : HUGE_VAL;
  if (e < -1100) return sgn < 0 ? -0.0 : 0.0;
  int cmp;
  if (e >= 0) {
    mpz_mul_2exp(t.v, den, static_cast<mp_bitcnt_t>(e));
    cmp = mpz_cmp(a.v, t.v);
  } else {
    mpz_mul_2exp(t.v, a.v, static_cast<mp_bitcnt_t>(-e));
    cmp = mpz_cmp(t.v, den);
  }
  if (cmp < 0) --e;
  // The result is an integer multiple Q of 2^g (g = exponent of its ulp).
  const long g = e - 52 < -1074 ? -1074 : e - 52;
  Z q, r, d;
  if (g >= 0) {
    mpz_mul_2exp(d.v, den, static_cast<mp_bitcnt_t>(g));
    mpz_tdiv_qr(q.v, r.v, a.v, d.v);
  } else {
    mpz_mul_2exp(t.v, a.v, static_cast<mp_bitcnt_t>(-g));
    mpz_set(d.v, den);
    mpz_tdiv_qr(q.v, r.v, t.v, d.v);
  }
  mpz_mul_2exp(r.v, r.v, 1);
  const int c = mpz_cmp(r.v, d.v);
  if (c > 0 || (c == 0 && mpz_odd_p(q.v))) mpz_add_ui(q.v, q.v, 1);
  const double res = std::ldexp(mpz_get_d(q.v), static_cast<int>(g));  // q <= 2^53: exact
  return sgn < 0 ? -res : res;
}

/// The exact slow path: x = sig * 10^e, sig a digit string without leading zeros.
bool parse_exact(const std::string& sig, std::int64_t e, double& hi, double& lo) {
  Z num, den, p;
  mpz_set_str(num.v, sig.c_str(), 10);
  mpz_set_ui(den.v, 1);
  if (e >= 0) {
    mpz_ui_pow_ui(p.v, 10, static_cast<unsigned long>(e));
    mpz_mul(num.v, num.v, p.v);
  } else {
    mpz_ui_pow_ui(den.v, 10, static_cast<unsigned long>(-e));
  }
  hi = rn_ratio(num.v, den.v);
  if (!std::isfinite(hi)) return false;
  // x - hi = (num - H 2^f den) / den with hi = H 2^f, H an integer.
  int f = 0;
  const double m = std::frexp(hi, &f);
  Z h;
  mpz_set_d(h.v, std::ldexp(m, 53));
  f -= 53;
  if (f >= 0) {
    mpz_mul_2exp(h.v, h.v, static_cast<mp_bitcnt_t>(f));
    mpz_mul(h.v, h.v, den.v);
    mpz_sub(num.v, num.v, h.v);
  } else {
    mpz_mul_2exp(num.v, num.v, static_cast<mp_bitcnt_t>(-f));
    mpz_mul(h.v, h.v, den.v);
    mpz_sub(num.v, num.v, h.v);
    mpz_mul_2exp(den.v, den.v, static_cast<mp_bitcnt_t>(-f));
  }
  lo = rn_ratio(num.v, den.v);
  return true;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

bool parse_dd(std::string_view s, dd_real& out) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    ++i;
  }
  std::string sig;        // significant digits, no leading zeros
  std::int64_t dexp = 0;  // value = sig * 10^(dexp + exponent)
  bool any = false, dot = false;
  for (; i < n; ++i) {
    const char c = s[i];
    if (c == '.') {
      if (dot) return false;
      dot = true;
      continue;
    }
    if (!is_digit(c)) break;
    any = true;
    if (dot) --dexp;
    if (sig.empty() && c == '0') continue;
    sig.push_back(c);
  }
  if (!any) return false;
  std::int64_t ex = 0;
  if (i < n) {
    const char c = s[i];
    if (c != 'e' && c != 'E' && c != 'd' && c != 'D') return false;
    ++i;
    bool eneg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
      eneg = s[i] == '-';
      ++i;
    }
    if (i >= n) return false;
    for (; i < n; ++i) {
      if (!is_digit(s[i])) return false;
      if (ex < 1000000000) ex = ex * 10 + (s[i] - '0');  // saturates: far beyond any range
    }
    if (eneg) ex = -ex;
  }
  while (!sig.empty() && sig.back() == '0') {
    sig.pop_back();
    ++dexp;
  }
  const double sgn = neg ? -1.0 : 1.0;
  if (sig.empty()) {
    out = dd_real(sgn * 0.0, 0.0);
    return true;
  }
  const std::int64_t e = dexp + ex;
  const std::int64_t nd = static_cast<std::int64_t>(sig.size());
  if (nd - 1 + e > 308) return false;  // x >= 1e309 > DBL_MAX
  if (nd + e < -324) {                 // x < 1e-324 < 2^-1075: rounds to zero
    out = dd_real(sgn * 0.0, 0.0);
    return true;
  }
  double hi = 0.0, lo = 0.0;
  std::uint64_t mant = 0;
  if (nd <= 16) {
    for (char c : sig)
      mant = mant * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (nd <= 16 && mant <= (std::uint64_t{1} << 53) && e >= -22 && e <= 22) {
    // Fast path (docs/dd.md): M and 10^|e| are exact doubles.
    const double m = static_cast<double>(mant);
    if (e >= 0) {
      const double p = kPow10[e];
      hi = m * p;                // RN(M 10^e)
      lo = std::fma(m, p, -hi);  // RN(M 10^e - hi)
    } else {
      const double p = kPow10[-e];
      hi = m / p;                            // RN(M / 10^k)
      const double r = std::fma(-hi, p, m);  // M - hi 10^k, exact (<= 52 bits)
      lo = r / p;                            // RN((M - hi 10^k) / 10^k) = RN(x - hi)
    }
  } else if (!parse_exact(sig, e, hi, lo)) {
    return false;
  }
  // Canonical form hi == fl(hi + lo): changes the pair only when hi + lo is exactly a midpoint
  // between two doubles (lo = +-ulp(hi)/2 with an odd hi, e.g. when lo is subnormal).
  dd_real r;
  ddops::quick_two_sum(sgn * hi, sgn * lo, r.hi, r.lo);
  if (r.hi == 0.0) r.hi = sgn * hi;  // underflow to a signed zero
  if (r.lo == 0.0) r.lo = 0.0;       // a zero lo is +0
  out = r;
  return true;
}

std::string dd_to_string(const dd_real& x, int sig_digits) {
  if (sig_digits < 1 || sig_digits > 1100)
    throw UsageError("dd_to_string: sig_digits must be in [1, 1100], got " +
                     std::to_string(sig_digits));
  if (std::isnan(x.hi) || std::isnan(x.lo)) return "nan";
  if (std::isinf(x.hi) || std::isinf(x.lo)) {
    const double s = std::isinf(x.hi) ? x.hi : x.lo;
    return s < 0.0 ? "-inf" : "inf";
  }
  std::string res;
  if (x.hi == 0.0 && x.lo == 0.0) {
    if (std::signbit(x.hi)) res.push_back('-');
    res.push_back('0');
    if (sig_digits > 1) res += "." + std::string(static_cast<std::size_t>(sig_digits - 1), '0');
    return res + "e+00";
  }
  // Enough bits for the exact sum: the span from the top bit of hi to the last bit of lo, plus
  // a carry (at most 2200: two doubles span < 2100 bits).
  mpfr_prec_t prec = 2200;
  if (x.hi != 0.0 && x.lo != 0.0) {
    const int span = std::ilogb(x.hi) - std::ilogb(x.lo);
    if (span >= 0 && span < 2100) prec = span + 56;
  } else if (x.lo == 0.0) {
    prec = 56;
  }
  mpfr_t v;
  mpfr_init2(v, prec);
  mpfr_set_d(v, x.hi, MPFR_RNDN);     // exact
  mpfr_add_d(v, v, x.lo, MPFR_RNDN);  // exact
  mpfr_exp_t ex = 0;
  char* str = mpfr_get_str(nullptr, &ex, 10, static_cast<std::size_t>(sig_digits), v, MPFR_RNDN);
  mpfr_clear(v);
  if (str == nullptr) throw Error("dd_to_string: mpfr_get_str failed");
  const char* d = str;
  if (*d == '-') {
    res.push_back('-');
    ++d;
  }
  res.push_back(d[0]);
  if (d[1] != '\0') {
    res.push_back('.');
    res += d + 1;
  }
  mpfr_free_str(str);
  const long e10 = static_cast<long>(ex) - 1;  // value = 0.d1d2... * 10^ex
  res.push_back('e');
  res.push_back(e10 < 0 ? '-' : '+');
  const std::string es = std::to_string(e10 < 0 ? -e10 : e10);
  if (es.size() < 2) res.push_back('0');
  return res + es;
}

std::string dd_to_string_roundtrip(const dd_real& x) {
  if (!std::isfinite(x.hi) || !std::isfinite(x.lo)) return dd_to_string(x, 33);
  int n = 33;
  for (;;) {
    std::string s = dd_to_string(x, n);
    dd_real y;
    if (n >= 1100 || (parse_dd(s, y) && std::signbit(y.hi) == std::signbit(x.hi) && y.hi == x.hi &&
                      y.lo == x.lo))
      return s;
    n = n < 40 ? n + 1 : (n * 2 > 1100 ? 1100 : n * 2);
  }
}

}  // namespace eigsolve
