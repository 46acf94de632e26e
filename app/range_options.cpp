// --index-range / --value-range parsing.
#include "app/range_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "core/errors.hpp"

namespace eigsolve {

namespace {

/// 'text' with control and non-ASCII bytes as \xNN (first 60 bytes).
std::string quoted(const std::string& s) {
  std::string r = "'";
  for (std::size_t k = 0; k < s.size() && k < 60; ++k) {
    const unsigned char u = static_cast<unsigned char>(s[k]);
    if (u >= 0x20 && u < 0x7f) {
      r += s[k];
    } else {
      static const char kHex[] = "0123456789abcdef";
      r += "\\x";
      r += kHex[u >> 4];
      r += kHex[u & 15];
    }
  }
  return r + (s.size() > 60 ? "...'" : "'");
}

/// Splits "a:b" into its two halves; throws UsageError naming the option.
std::pair<std::string, std::string> split_range(const std::string& s, const char* opt) {
  auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
    throw UsageError(std::string(opt) + " expects FROM:TO, got " + quoted(s));
  return {s.substr(0, colon), s.substr(colon + 1)};
}

double parse_double_arg(const std::string& s, const char* opt) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || end != s.c_str() + s.size() || !(v - v == 0))  // whole text
    throw UsageError(std::string(opt) + ": " + quoted(s) + " is not a finite number");
  return v;
}

long long parse_int_arg(const std::string& s, const char* opt) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || end != s.c_str() + s.size())  // whole text (no '\0' inside)
    throw UsageError(std::string(opt) + ": " + quoted(s) + " is not an integer");
  if (errno == ERANGE) throw UsageError(std::string(opt) + ": " + quoted(s) + " is out of range");
  return v;
}

}  // namespace

Subset parse_subset(const std::string& index_range, const std::string& value_range, index_t n) {
  Subset s;
  if (!index_range.empty() && !value_range.empty())
    throw UsageError("--index-range and --value-range cannot be combined");
  if (!index_range.empty()) {
    auto [a, b] = split_range(index_range, "--index-range");
    long long i = parse_int_arg(a, "--index-range"), j = parse_int_arg(b, "--index-range");
    if (i < 1 || j < i || j > n) {
      // n is the maximum while the syntax is checked before the matrix is read
      const bool known = n < std::numeric_limits<index_t>::max();
      throw UsageError("--index-range " + quoted(index_range) + ": need 1 <= FROM <= TO" +
                       (known ? " <= n = " + std::to_string(n) : std::string()));
    }
    s.kind = Subset::Kind::index;
    s.il = i - 1;
    s.iu = j - 1;
  } else if (!value_range.empty()) {
    auto [a, b] = split_range(value_range, "--value-range");
    s.kind = Subset::Kind::value;
    s.vl = parse_double_arg(a, "--value-range");
    s.vu = parse_double_arg(b, "--value-range");
    if (!(s.vl < s.vu))
      throw UsageError("--value-range " + quoted(value_range) + ": need FROM < TO");
  }
  return s;
}

}  // namespace eigsolve
