#include "core/precision.hpp"

#include "core/errors.hpp"

namespace eigsolve {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::s:
      return "s";
    case Precision::d:
      return "d";
    case Precision::c:
      return "c";
    case Precision::z:
      return "z";
    case Precision::dd:
      return "dd";
  }
  return "?";
}

Precision parse_precision(const std::string& s) {
  if (s == "s") return Precision::s;
  if (s == "d") return Precision::d;
  if (s == "c") return Precision::c;
  if (s == "z") return Precision::z;
  if (s == "dd") return Precision::dd;
  throw UsageError("unknown precision '" + s + "' (expected s, d, c, z or dd)");
}

}  // namespace eigsolve
