// Helpers shared by the dd_real tests: random normalized dd values and MPFR references.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "core/dd_real.hpp"

namespace ddtest {

using eigsolve::dd_real;

constexpr double kU2 = 0x1p-106;  ///< u^2, u = 2^-53

/// An MPFR number of the given precision (RAII).
struct Mp {
  mpfr_t v;
  explicit Mp(mpfr_prec_t prec = 300) { mpfr_init2(v, prec); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
};

/// r = hi + lo (exact when r has >= 2200 bits; to 300 bits otherwise, error 2^-300 relative).
inline void set_dd(mpfr_t r, const dd_real& x) {
  mpfr_set_d(r, x.hi, MPFR_RNDN);
  mpfr_add_d(r, r, x.lo, MPFR_RNDN);
}

/// |x - ref| / |ref| in units of u^2 (x exact in 2200 bits; ref != 0).
inline double rel_err_u2(const dd_real& x, const mpfr_t ref) {
  Mp d(2400);
  set_dd(d.v, x);
  mpfr_sub(d.v, d.v, ref, MPFR_RNDN);
  mpfr_div(d.v, d.v, ref, MPFR_RNDN);
  return std::fabs(mpfr_get_d(d.v, MPFR_RNDN)) / kU2;
}

/// The two pairs have the same bits (signed zeros and NaN payloads included).
inline bool same_bits(const dd_real& x, const dd_real& y) {
  return std::memcmp(&x.hi, &y.hi, sizeof(double)) == 0 &&
         std::memcmp(&x.lo, &y.lo, sizeof(double)) == 0;
}

/// hi == fl(hi + lo) (the normalization invariant).
inline bool normalized(const dd_real& x) {
  return x.hi + x.lo == x.hi;
}

inline double ulp(double x) {
  return std::ldexp(1.0, std::ilogb(x) - 52);
}

/// Random generator of normalized dd values.
class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  int uniform_int(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng_); }
  bool coin() { return (rng_() & 1) != 0; }
  /// A random 53-bit significand in [1, 2).
  double significand() {
    const std::uint64_t m = rng_() >> 11;  // 53 bits
    return std::ldexp(static_cast<double>(m | (std::uint64_t{1} << 52)), -52);
  }
  /// Random dd with |hi| in [2^emin, 2^(emax+1)), random sign, and a lo that is full size
  /// (most cases), zero, or much smaller than ulp(hi)/2.
  dd_real dd(int emin, int emax) {
    const double hi = (coin() ? -1.0 : 1.0) * std::ldexp(significand(), uniform_int(emin, emax));
    const int kind = uniform_int(0, 9);
    double lo = 0.0;
    if (kind >= 2) lo = (uniform() - 0.5) * ulp(hi);
    if (kind == 1) lo = std::ldexp((uniform() - 0.5) * ulp(hi), -uniform_int(1, 60));
    return dd_real::from_sum(hi, lo);
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace ddtest
