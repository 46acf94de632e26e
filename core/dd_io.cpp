// Decimal conversions of dd_real: see dd_io.hpp and docs/dd.md.
#include "core/dd_io.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

// ---------------------------------------------------------------------------------------------
// Exact fixed-width digit generation (the fast path of dd_to_string and
// dd_to_string_roundtrip; docs/dd.md, "Decimal conversion").
// ---------------------------------------------------------------------------------------------

/// A non-negative integer in little-endian 64-bit limbs, with a fixed capacity; callers check
/// the sizes beforehand (exact_digits).
struct Big {
  static constexpr int kLimbs = 40;  // 2560 bits
  std::uint64_t d[kLimbs];
  int n = 0;  // limbs in use; d[n - 1] != 0 when n > 0

  Big() = default;
  Big(const Big& o) : n(o.n) { std::copy(o.d, o.d + o.n, d); }
  Big& operator=(const Big& o) {
    n = o.n;
    std::copy(o.d, o.d + o.n, d);
    return *this;
  }

  void set(std::uint64_t v) {
    n = v != 0 ? 1 : 0;
    d[0] = v;
  }
  bool is_zero() const { return n == 0; }
  void trim() {
    while (n > 0 && d[n - 1] == 0)
      --n;
  }
  int bit_length() const { return n == 0 ? 0 : 64 * (n - 1) + (64 - __builtin_clzll(d[n - 1])); }
  bool odd() const { return n > 0 && (d[0] & 1u) != 0; }
  void mul_small(std::uint64_t m) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < n; ++i) {
      const unsigned __int128 p = static_cast<unsigned __int128>(d[i]) * m + carry;
      d[i] = static_cast<std::uint64_t>(p);
      carry = p >> 64;
    }
    if (carry != 0) d[n++] = static_cast<std::uint64_t>(carry);
  }
  void add_small(std::uint64_t v) {
    for (int i = 0; v != 0; ++i) {
      if (i == n) {
        d[n++] = v;
        return;
      }
      d[i] += v;
      v = d[i] < v ? 1 : 0;
    }
  }
  void sub_small(std::uint64_t v) {  // requires *this >= v
    for (int i = 0; v != 0; ++i) {
      const std::uint64_t old = d[i];
      d[i] = old - v;
      v = old < v ? 1 : 0;
    }
    trim();
  }
  void shl(int b) {
    if (n == 0 || b == 0) return;
    const int w = b / 64, r = b % 64;
    if (r == 0) {
      for (int i = n - 1; i >= 0; --i)
        d[i + w] = d[i];
      d[n + w] = 0;
    } else {
      d[n + w] = d[n - 1] >> (64 - r);
      for (int i = n - 1; i > 0; --i)
        d[i + w] = (d[i] << r) | (d[i - 1] >> (64 - r));
      d[w] = d[0] << r;
    }
    for (int i = 0; i < w; ++i)
      d[i] = 0;
    n += w + 1;
    trim();
  }
  /// *this >> b into q, *this mod 2^b into r.
  void split(int b, Big& q, Big& r) const {
    const int w = b / 64, s = b % 64;
    r.n = std::min(n, w + (s != 0 ? 1 : 0));
    for (int i = 0; i < r.n; ++i)
      r.d[i] = d[i];
    if (s != 0 && r.n == w + 1) r.d[w] &= (std::uint64_t{1} << s) - 1;
    r.trim();
    q.n = n > w ? n - w : 0;
    for (int i = 0; i < q.n; ++i) {
      q.d[i] = d[i + w] >> s;
      if (s != 0 && i + w + 1 < n) q.d[i] |= d[i + w + 1] << (64 - s);
    }
    q.trim();
  }
  /// Divides by v (> 0) in place; returns the remainder.
  std::uint64_t div_small(std::uint64_t v) {
    unsigned __int128 rem = 0;
    for (int i = n - 1; i >= 0; --i) {
      const unsigned __int128 cur = (rem << 64) | d[i];
      d[i] = static_cast<std::uint64_t>(cur / v);
      rem = cur % v;
    }
    trim();
    return static_cast<std::uint64_t>(rem);
  }
};

int cmp(const Big& a, const Big& b) {
  if (a.n != b.n) return a.n < b.n ? -1 : 1;
  for (int i = a.n - 1; i >= 0; --i)
    if (a.d[i] != b.d[i]) return a.d[i] < b.d[i] ? -1 : 1;
  return 0;
}

/// out = a * b (out distinct from a and b; the sizes fit).
void mul(const Big& a, const Big& b, Big& out) {
  out.n = a.n + b.n;
  for (int i = 0; i < out.n; ++i)
    out.d[i] = 0;
  for (int i = 0; i < a.n; ++i) {
    unsigned __int128 carry = 0;
    for (int j = 0; j < b.n; ++j) {
      const unsigned __int128 p =
          static_cast<unsigned __int128>(a.d[i]) * b.d[j] + out.d[i + j] + carry;
      out.d[i + j] = static_cast<std::uint64_t>(p);
      carry = p >> 64;
    }
    out.d[i + b.n] = static_cast<std::uint64_t>(carry);
  }
  out.trim();
}

/// a -= b (a >= b).
void sub(Big& a, const Big& b) {
  std::uint64_t borrow = 0;
  for (int i = 0; i < a.n; ++i) {
    const std::uint64_t bi = i < b.n ? b.d[i] : 0;
    const std::uint64_t t = a.d[i] - bi;
    const std::uint64_t nb = (a.d[i] < bi) || (t < borrow) ? 1 : 0;
    a.d[i] = t - borrow;
    borrow = nb;
  }
  a.trim();
}

constexpr std::uint64_t kTen19 = 10000000000000000000ull;

void pow10(int s, Big& out) {
  out.set(1);
  for (; s >= 19; s -= 19)
    out.mul_small(kTen19);
  std::uint64_t p = 1;
  for (; s > 0; --s)
    p *= 10;
  out.mul_small(p);
}

std::uint64_t bits_of(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// The exponent of the last bit of the significand of a finite nonzero double (its ulp).
int ulp_exp(double v) {
  const int be = static_cast<int>((bits_of(v) >> 52) & 0x7ff);
  return be == 0 ? -1074 : be - 1075;
}

/// |v| / 2^ulp_exp(v), an integer below 2^53.
std::uint64_t significand(double v) {
  const std::uint64_t b = bits_of(v);
  const std::uint64_t m = b & ((std::uint64_t{1} << 52) - 1);
  return ((b >> 52) & 0x7ff) == 0 ? m : m | (std::uint64_t{1} << 52);
}

/// 10^k as a Big, from a table for k <= kPow10Table (built once), else computed.
constexpr int kPow10Table = 400;
void pow10_big(int k, Big& out) {
  static const std::vector<Big> table = [] {
    std::vector<Big> t(kPow10Table + 1);
    for (int i = 0; i <= kPow10Table; ++i)
      pow10(i, t[static_cast<std::size_t>(i)]);
    return t;
  }();
  if (k <= kPow10Table) {
    out = table[static_cast<std::size_t>(k)];
  } else {
    pow10(k, out);
  }
}

/// hi + lo = M 2^e exactly (M > 0), the decimal N 10^(k - n + 1) nearest to it with n digits
/// (ties to even), and the error: x 10^s 2^-e - N 2^-e = +-R (s = n - 1 - k before a carry).
struct Digits {
  Big m, t, n, r;  // M, 10^s, N, |R|
  int e = 0, s = 0, k = 0;
  bool r_neg = false;  // the decimal is above x (rounded up)
};

/// The exact digits of x = hi + lo (hi finite and nonzero, |lo| < |hi|, lo finite) to nd
/// significant digits. False when the value or the digit count is outside the fixed-width
/// range (|x| >= 10^nd, or more than Big's capacity); the caller then uses MPFR.
bool exact_digits(double hi, double lo, int nd, Digits& g) {
  const int eh = ulp_exp(hi);
  const int el = lo != 0.0 ? ulp_exp(lo) : eh;
  const int e = el < eh ? el : eh;
  if (eh - e > 1100) return false;
  g.e = e;
  g.m.set(significand(hi));
  g.m.shl(eh - e);
  if (lo != 0.0) {
    const std::uint64_t l = significand(lo) << (el - e);  // el == e here (|lo| < |hi|)
    if (std::signbit(lo) == std::signbit(hi)) {
      g.m.add_small(l);
    } else {
      g.m.sub_small(l);
    }
  }
  int k = static_cast<int>(std::floor(std::log10(std::fabs(hi))));
  Big lo10, hi10, p;
  for (int tries = 0;; ++tries) {
    if (tries == 4) return false;  // cannot happen: the estimate is off by at most one
    const int s = nd - 1 - k;
    if (s < 0) return false;
    // P = M 10^s and the powers of ten below 2^(bits(M) + 4 s + 4 nd) < capacity.
    if (g.m.bit_length() + 4 * s + 4 * nd + 128 > 64 * Big::kLimbs) return false;
    if (e >= 0 && g.m.bit_length() + 4 * s + e + 128 > 64 * Big::kLimbs) return false;
    pow10_big(s, g.t);
    mul(g.m, g.t, p);
    if (e >= 0) {
      p.shl(e);
      g.n = p;
      g.r.set(0);
    } else {
      p.split(-e, g.n, g.r);  // N = floor(x 10^s), r = remainder in units of 2^e
    }
    pow10_big(nd - 1, lo10);
    pow10_big(nd, hi10);
    if (cmp(g.n, lo10) < 0) {
      --k;
      continue;
    }
    if (cmp(g.n, hi10) >= 0) {
      ++k;
      continue;
    }
    g.s = s;
    break;
  }
  g.r_neg = false;
  if (e < 0 && !g.r.is_zero()) {
    // Round to nearest, ties to even: compare r with 2^(-e-1).
    Big half;
    half.set(1);
    half.shl(-e - 1);
    const int c = cmp(g.r, half);
    if (c > 0 || (c == 0 && g.n.odd())) {
      g.n.add_small(1);
      Big full = half;
      full.shl(1);
      sub(full, g.r);
      g.r = full;
      g.r_neg = true;
      if (cmp(g.n, hi10) == 0) {  // carry into a new digit: 10^nd -> 10^(nd-1), one more
        g.n = lo10;
        ++k;
      }
    }
  }
  g.k = k;
  return true;
}

/// Appends the nd digits of N (10^(nd-1) <= N < 10^nd) and the exponent in dd_to_string's
/// format.
void format_digits(bool neg, Big n, int nd, int k, std::string& res) {
  char buf[1200];
  int pos = nd;
  while (pos > 0) {
    std::uint64_t chunk;
    if (n.n == 0 || (n.n == 1 && n.d[0] < kTen19)) {  // the last 19 digits
      chunk = n.n == 0 ? 0 : n.d[0];
      n.n = 0;
    } else {
      chunk = n.div_small(kTen19);
    }
    static const char kPairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    int i = 0;
    for (; i + 2 <= 19 && pos >= 2; i += 2) {
      const std::uint64_t r = chunk % 100;
      chunk /= 100;
      buf[--pos] = kPairs[2 * r + 1];
      buf[--pos] = kPairs[2 * r];
    }
    for (; i < 19 && pos > 0; ++i) {
      buf[--pos] = static_cast<char>('0' + chunk % 10);
      chunk /= 10;
    }
  }
  if (neg) res.push_back('-');
  res.push_back(buf[0]);
  if (nd > 1) {
    res.push_back('.');
    res.append(buf + 1, static_cast<std::size_t>(nd - 1));
  }
  res.push_back('e');
  res.push_back(k < 0 ? '-' : '+');
  const int a = k < 0 ? -k : k;
  if (a < 10) res.push_back('0');
  char eb[8];
  int ep = 0;
  for (int v = a; v > 0 || ep == 0; v /= 10)
    eb[ep++] = static_cast<char>('0' + v % 10);
  while (ep > 0)
    res.push_back(eb[--ep]);
}

/// Whether parse_dd(dd_to_string(x, nd)) gives x back, decided from the exact error of the
/// digits (docs/dd.md): 1 yes, 0 no, -1 not decided here (the caller parses the string).
int decide_round_trip(double hi, double lo, const Digits& g) {
  // Normal hi and lo away from the subnormal range: the rounding intervals below hold.
  const double ahi = std::fabs(hi), alo = std::fabs(lo);
  if (ahi < 0x1p-1000 || (lo != 0.0 && alo < 0x1p-1000)) return -1;
  const int eh = ulp_exp(hi);
  const bool hi_pow2 = significand(hi) == (std::uint64_t{1} << 52);
  // G: half the gap from hi to its neighbour on lo's side (toward zero below a power of two).
  const bool toward_zero = lo == 0.0 || std::signbit(lo) != std::signbit(hi);
  const int g_exp = (toward_zero && hi_pow2) ? eh - 2 : eh - 1;
  if (!(alo < std::ldexp(1.0, g_exp))) return -1;  // a tie (or not normalized): MPFR decides
  // From here x is normalized: Fast2Sum(hi, lo) == (hi, lo). The decimal is D = x + delta with
  // |delta| = |R| 2^e 10^-s.
  if (lo == 0.0) {
    if (g.r.is_zero()) return 1;  // D == x exactly
    // |delta| < G (so RN(D) = hi) and |delta| > 2^-1075 (so RN(D - hi) != 0): fails.
    Big r2 = g.r;
    r2.shl(hi_pow2 ? 2 : 1);
    if (cmp(r2, g.t) < 0 && g.e + 1075 > g.t.bit_length()) return 0;
    return -1;
  }
  // lo != 0: e is lo's ulp exponent. RN(lo + delta) == lo when |delta| is below half of lo's
  // smaller adjacent gap; then |lo + delta| < G, so RN(D) = hi as well.
  const bool lo_pow2 = significand(lo) == (std::uint64_t{1} << 52);
  Big r2 = g.r;
  r2.shl(lo_pow2 ? 2 : 1);
  if (cmp(r2, g.t) < 0) return 1;
  if (lo_pow2) {
    r2 = g.r;
    r2.shl(1);
  }
  if (cmp(r2, g.t) > 0) {
    // |delta| above half of lo's larger gap: RN(lo + delta) != lo. If also |lo| + |delta| < G,
    // RN(D) = hi and the pair read back is (hi, != lo): fails. |R| < (G 2^-e - |lo| 2^-e) 10^s.
    Big w, wt;
    w.set(1);
    w.shl(g_exp - g.e);
    w.sub_small(significand(lo));
    mul(w, g.t, wt);
    if (cmp(g.r, wt) < 0) return 0;
  }
  return -1;
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
  if (x.hi != 0.0 && std::fabs(x.lo) < std::fabs(x.hi)) {
    Digits g;
    if (exact_digits(x.hi, x.lo, sig_digits, g)) {
      format_digits(std::signbit(x.hi), g.n, sig_digits, g.k, res);
      return res;
    }
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
  if (x.hi == 0.0 && x.lo == 0.0) return dd_to_string(x, 33);  // reads back as (+-0, +0)
  const bool fast = x.hi != 0.0 && std::fabs(x.lo) < std::fabs(x.hi);
  int n = 33;
  for (;;) {
    // The exact digits decide most lengths without printing or parsing (docs/dd.md); the
    // rest print and parse back, as the definition says.
    Digits g;
    if (fast && n < 1100 && exact_digits(x.hi, x.lo, n, g)) {
      const int ok = decide_round_trip(x.hi, x.lo, g);
      if (ok == 1) {
        std::string res;
        format_digits(std::signbit(x.hi), g.n, n, g.k, res);
        return res;
      }
      if (ok == 0) {
        n = n < 40 ? n + 1 : (n * 2 > 1100 ? 1100 : n * 2);
        continue;
      }
    }
    std::string s = dd_to_string(x, n);
    dd_real y;
    if (n >= 1100 || (parse_dd(s, y) && std::signbit(y.hi) == std::signbit(x.hi) && y.hi == x.hi &&
                      y.lo == x.lo))
      return s;
    n = n < 40 ? n + 1 : (n * 2 > 1100 ? 1100 : n * 2);
  }
}

}  // namespace eigsolve
