// libFuzzer target: the CLI's --index-range / --value-range parsing (app/range_options.hpp).
// Input: two bytes of n, then the --index-range text, a '\n', the --value-range text.
// Checks: only UsageError is thrown, its message is one printable line; an accepted index range
// is what a plain reference parser ([blanks] [+|-] digits ':' [blanks] [+|-] digits, whole
// text) says, with 0 <= il <= iu < n; an accepted value range has finite vl < vu and both
// halves are whole numbers (strtod reads every byte).
#include <cmath>
#include <cstdlib>
#include <string>

#include "app/range_options.hpp"
#include "core/errors.hpp"
#include "fuzz_common.hpp"

using namespace eigsolve;

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/// [blanks] [+|-] digits, the whole text, as a saturated integer.
bool ref_integer(const std::string& s, long double& v) {
  std::size_t k = 0;
  while (k < s.size() && blank(s[k]))
    ++k;
  bool neg = false;
  if (k < s.size() && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
  const std::size_t d = k;
  v = 0;
  for (; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k)
    v = v * 10 + (s[k] - '0');
  if (neg) v = -v;
  return k > d && k == s.size();
}

bool ref_index(const std::string& r, index_t n, index_t& il, index_t& iu) {
  const std::size_t colon = r.find(':');
  if (colon == std::string::npos) return false;
  long double a, b;
  if (!ref_integer(r.substr(0, colon), a) || !ref_integer(r.substr(colon + 1), b)) return false;
  if (a < 1 || b < a || b > static_cast<long double>(n)) return false;
  il = static_cast<index_t>(a) - 1;
  iu = static_cast<index_t>(b) - 1;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  index_t n = static_cast<index_t>(data[0] | (data[1] << 8));
  if (data[0] == 0xff) n = INT64_MAX;  // as run_solve checks the syntax before reading
  const std::string rest(reinterpret_cast<const char*>(data) + 2, size - 2);
  const std::size_t nl = rest.find('\n');
  const std::string ir = rest.substr(0, nl), vr = nl == std::string::npos ? "" : rest.substr(nl + 1);
  Subset s;
  try {
    s = parse_subset(ir, vr, n);
  } catch (const UsageError& e) {
    fuzz::check_message(e.what(), "--");
    index_t a, b;
    if (vr.empty() && !ir.empty() && ref_index(ir, n, a, b))
      fuzz::finding("rejected a valid --index-range: " + std::string(e.what()));
    return 0;
  }
  if (!ir.empty() && !vr.empty()) fuzz::finding("both ranges accepted together");
  if (!ir.empty()) {
    index_t a, b;
    if (!ref_index(ir, n, a, b)) fuzz::finding("accepted an invalid --index-range");
    if (s.kind != Subset::Kind::index || s.il != a || s.iu != b)
      fuzz::finding("--index-range parsed to a different range");
  } else if (!vr.empty()) {
    if (s.kind != Subset::Kind::value || !std::isfinite(s.vl) || !std::isfinite(s.vu) ||
        !(s.vl < s.vu))
      fuzz::finding("accepted a bad --value-range");
    const std::size_t colon = vr.find(':');
    for (const std::string& half : {vr.substr(0, colon), vr.substr(colon + 1)}) {
      char* end = nullptr;
      std::strtod(half.c_str(), &end);
      if (end != half.c_str() + half.size())
        fuzz::finding("accepted a --value-range half with bytes strtod does not read");
    }
  } else if (s.kind != Subset::Kind::all) {
    fuzz::finding("no range given, but not 'all'");
  }
  return 0;
}
