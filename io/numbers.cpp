// Number parsing (correctly rounded, straight into the target type) and shortest formatting.
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <locale.h>
#include <string>

#include "io/io_detail.hpp"

#include "core/dd_io.hpp"

namespace eigsolve {
namespace io_detail {

namespace {

bool starts_nonfinite_word(const char* b, const char* e) {
  if (b < e && (*b == '-' || *b == '+')) ++b;
  return b < e && (*b == 'i' || *b == 'I' || *b == 'n' || *b == 'N');
}

// A copy of [b, e) with Fortran 'd'/'D' exponent markers turned into 'e' (nullptr-free).
bool fortran_to_c(const char* b, const char* e, char* out, std::size_t cap, std::size_t& len) {
  len = static_cast<std::size_t>(e - b);
  if (len + 1 > cap) return false;
  bool changed = false;
  for (std::size_t k = 0; k < len; ++k) {
    char c = b[k];
    if (c == 'd' || c == 'D') {
      c = 'e';
      changed = true;
    }
    out[k] = c;
  }
  out[len] = '\0';
  return changed;
}

locale_t c_locale() {
  static locale_t loc = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return loc;
}

// from_chars reports underflow as out_of_range; strtod/strtof (correctly rounded in glibc)
// give the rounded subnormal or zero, and +-HUGE_VAL on overflow.
template <class R>
NumStatus slow_path(const char* b, const char* e, R& out) {
  char tmp[512];
  std::size_t len;
  fortran_to_c(b, e, tmp, sizeof tmp, len);
  if (len + 1 > sizeof tmp) return NumStatus::kBad;
  char* endp = nullptr;
  R v;
  if constexpr (std::is_same<R, float>::value) {
    v = ::strtof_l(tmp, &endp, c_locale());
  } else {
    v = ::strtod_l(tmp, &endp, c_locale());
  }
  if (endp != tmp + len) return NumStatus::kBad;
  if (!is_finite(v)) return NumStatus::kOverflow;
  out = v;
  return NumStatus::kOk;
}

template <class R>
NumStatus parse_ieee(const char* b, const char* e, R& out) {
  if (b < e && *b == '+') {
    ++b;
    if (b < e && (*b == '-' || *b == '+')) return NumStatus::kBad;
  }
  if (b == e) return NumStatus::kBad;
  if (starts_nonfinite_word(b, e)) {
    R v;
    auto r = std::from_chars(b, e, v);
    return (r.ec == std::errc() && r.ptr == e) ? NumStatus::kNonFinite : NumStatus::kBad;
  }
  auto r = std::from_chars(b, e, out);
  if (r.ptr == e) {
    if (r.ec == std::errc()) return NumStatus::kOk;
    if (r.ec == std::errc::result_out_of_range) return slow_path(b, e, out);
    return NumStatus::kBad;
  }
  if (r.ptr < e && (*r.ptr == 'd' || *r.ptr == 'D')) {  // Fortran exponent
    char tmp[512];
    std::size_t len;
    if (!fortran_to_c(b, e, tmp, sizeof tmp, len)) return NumStatus::kBad;
    auto r2 = std::from_chars(tmp, tmp + len, out);
    if (r2.ptr != tmp + len) return NumStatus::kBad;
    if (r2.ec == std::errc()) return NumStatus::kOk;
    if (r2.ec == std::errc::result_out_of_range) return slow_path(b, e, out);
  }
  return NumStatus::kBad;
}

}  // namespace

namespace {
NumStatus parse_dd_token(const char* b, const char* e, dd_real& out) {
  if (b < e && *b == '+') {
    ++b;
    if (b < e && (*b == '-' || *b == '+')) return NumStatus::kBad;
  }
  if (b == e) return NumStatus::kBad;
  if (starts_nonfinite_word(b, e)) {
    double v;
    auto r = std::from_chars(b, e, v);
    return (r.ec == std::errc() && r.ptr == e) ? NumStatus::kNonFinite : NumStatus::kBad;
  }
  char tmp[512];
  std::size_t len;
  if (static_cast<std::size_t>(e - b) + 1 > sizeof tmp) return NumStatus::kBad;
  fortran_to_c(b, e, tmp, sizeof tmp, len);
  // The double parse validates the syntax the same way as for float/double and detects
  // overflow; parse_dd then gives the correctly rounded pair.
  double d;
  auto r = std::from_chars(tmp, tmp + len, d);
  if (r.ptr != tmp + len) return NumStatus::kBad;
  if (r.ec == std::errc::result_out_of_range) {
    NumStatus s = slow_path(tmp, tmp + len, d);
    if (s != NumStatus::kOk) return s;
  } else if (r.ec != std::errc()) {
    return NumStatus::kBad;
  }
  dd_real v;
  if (!parse_dd(std::string_view(tmp, len), v)) return NumStatus::kBad;
  if (!is_finite(v)) return NumStatus::kOverflow;
  out = v;
  return NumStatus::kOk;
}
}  // namespace

template <class R>
NumStatus parse_real(const char* b, const char* e, R& out) {
  if constexpr (std::is_same<R, dd_real>::value) {
    return parse_dd_token(b, e, out);
  } else {
    return parse_ieee(b, e, out);
  }
}
template NumStatus parse_real<float>(const char*, const char*, float&);
template NumStatus parse_real<double>(const char*, const char*, double&);
template NumStatus parse_real<dd_real>(const char*, const char*, dd_real&);

NumStatus parse_int64(const char* b, const char* e, std::int64_t& out) {
  if (b < e && *b == '+') {
    ++b;
    if (b < e && (*b == '-' || *b == '+')) return NumStatus::kBad;
  }
  if (b == e) return NumStatus::kBad;
  auto r = std::from_chars(b, e, out);
  if (r.ptr != e) return NumStatus::kBad;
  if (r.ec == std::errc::result_out_of_range) return NumStatus::kOverflow;
  if (r.ec != std::errc()) return NumStatus::kBad;
  return NumStatus::kOk;
}

template <class R>
R int_to_real(std::int64_t v) {
  if constexpr (std::is_same<R, dd_real>::value) {
    double hi = static_cast<double>(v);
    __int128 rest = static_cast<__int128>(v) - static_cast<__int128>(hi);
    return dd_real::from_sum(hi, static_cast<double>(rest));  // rest is exact (|rest| <= 2^10)
  } else {
    return static_cast<R>(v);  // one rounding (to nearest even)
  }
}
template float int_to_real<float>(std::int64_t);
template double int_to_real<double>(std::int64_t);
template dd_real int_to_real<dd_real>(std::int64_t);

std::string number_error(NumStatus s, std::string_view token, const char* what) {
  switch (s) {
    case NumStatus::kNonFinite:
      return std::string(what) + " " + quote(token) + " is not finite (NaN and Inf are rejected)";
    case NumStatus::kOverflow:
      return std::string(what) + " " + quote(token) + " is out of range";
    default:
      return std::string(what) + " " + quote(token) + " is not a number";
  }
}

template <class R>
const char* real_type_name() {
  if constexpr (std::is_same<R, float>::value) return "float";
  if constexpr (std::is_same<R, double>::value) return "double";
  return "dd_real";
}
template const char* real_type_name<float>();
template const char* real_type_name<double>();
template const char* real_type_name<dd_real>();

}  // namespace io_detail

// ---------------------------------------------------------------------------------------------
// format_real
// ---------------------------------------------------------------------------------------------

namespace {
template <class R>
std::string shortest(R x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}
}  // namespace

template <class R>
std::string format_real(const R& x) {
  if constexpr (std::is_same<R, dd_real>::value) {
    if (!is_finite(x.hi)) return shortest(x.hi);
    // The shortest form (>= 33 significant digits) that parse_dd reads back to the same pair.
    return dd_to_string_roundtrip(x);
  } else {
    return shortest(x);
  }
}

#define EIGSOLVE_IO_INST(R) template std::string format_real<R>(const R&);
EIGSOLVE_FOR_EACH_REAL(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace eigsolve
