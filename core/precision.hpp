// The one precision list of eigsolve, its traits, and the dispatcher that turns a runtime
// Precision into a compile-time scalar type.
#pragma once

#include <cfloat>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "core/complex.hpp"
#include "core/dd_real.hpp"

namespace eigsolve {

using index_t = std::int64_t;  ///< every element offset i + j*lda is formed in 64 bits

enum class Precision { s, d, c, z, dd };

using cfloat = Complex<float>;
using cdouble = Complex<double>;

template <class T>
struct ScalarTraits;

template <>
struct ScalarTraits<float> {
  using real_type = float;
  static constexpr bool is_complex = false;
  static constexpr Precision precision = Precision::s;
  static constexpr const char* name = "s";
  static constexpr bool has_vendor_lapack = true;
  /// Unit roundoff u = 2^-24 (half the machine epsilon).
  static double unit_roundoff() { return 0x1p-24; }
  static constexpr int digits = 24;  ///< significand bits
};
template <>
struct ScalarTraits<double> {
  using real_type = double;
  static constexpr bool is_complex = false;
  static constexpr Precision precision = Precision::d;
  static constexpr const char* name = "d";
  static constexpr bool has_vendor_lapack = true;
  static double unit_roundoff() { return 0x1p-53; }
  static constexpr int digits = 53;
};
template <>
struct ScalarTraits<dd_real> {
  using real_type = dd_real;
  static constexpr bool is_complex = false;
  static constexpr Precision precision = Precision::dd;
  static constexpr const char* name = "dd";
  static constexpr bool has_vendor_lapack = false;
  /// About 2^-104 for the accurate operations of dd_real.hpp.
  static double unit_roundoff() { return 0x1p-104; }
  static constexpr int digits = 106;
};
template <class R>
struct ScalarTraits<Complex<R>> {
  using real_type = R;
  static constexpr bool is_complex = true;
  static constexpr Precision precision =
      std::is_same<R, float>::value ? Precision::c : Precision::z;
  static constexpr const char* name = std::is_same<R, float>::value ? "c" : "z";
  static constexpr bool has_vendor_lapack = ScalarTraits<R>::has_vendor_lapack;
  static double unit_roundoff() { return ScalarTraits<R>::unit_roundoff(); }
  static constexpr int digits = ScalarTraits<R>::digits;
};

template <class T>
using real_t = typename ScalarTraits<T>::real_type;
template <class T>
inline constexpr bool is_complex_v = ScalarTraits<T>::is_complex;
template <class T>
inline constexpr bool has_vendor_lapack_v = ScalarTraits<T>::has_vendor_lapack;

/// Build a scalar of type T from real and imaginary parts (imaginary ignored for reals).
template <class T>
inline T make_scalar(real_t<T> re, real_t<T> im) {
  if constexpr (is_complex_v<T>) {
    return T(re, im);
  } else {
    (void)im;
    return re;
  }
}

/// Tag carrying a scalar type through the dispatcher.
template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) for the scalar type T of precision p; returns what f returns.
template <class F>
decltype(auto) dispatch(Precision p, F&& f) {
  switch (p) {
    case Precision::s:
      return std::forward<F>(f)(TypeTag<float>{});
    case Precision::c:
      return std::forward<F>(f)(TypeTag<cfloat>{});
    case Precision::z:
      return std::forward<F>(f)(TypeTag<cdouble>{});
    case Precision::dd:
      return std::forward<F>(f)(TypeTag<dd_real>{});
    case Precision::d:
    default:
      return std::forward<F>(f)(TypeTag<double>{});
  }
}

/// "s", "d", "c", "z", "dd".
const char* precision_name(Precision p);
/// Parses a precision flag; throws UsageError on anything else.
Precision parse_precision(const std::string& s);
inline bool is_complex_precision(Precision p) {
  return p == Precision::c || p == Precision::z;
}

}  // namespace eigsolve

/// The explicit-instantiation list: EIGSOLVE_FOR_EACH_SCALAR(M) expands M(T) for every scalar.
#define EIGSOLVE_FOR_EACH_SCALAR(M) \
  M(float)                          \
  M(double)                         \
  M(::eigsolve::Complex<float>)     \
  M(::eigsolve::Complex<double>)    \
  M(::eigsolve::dd_real)
/// The same over the real types only.
#define EIGSOLVE_FOR_EACH_REAL(M) \
  M(float)                        \
  M(double)                       \
  M(::eigsolve::dd_real)
