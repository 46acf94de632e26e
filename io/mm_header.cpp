// Matrix Market banner and size line.
#include <cctype>
#include <string>
#include <vector>

#include "io/mm_header.hpp"

namespace eigsolve {
namespace io_detail {

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::vector<std::string_view> split(const char* b, const char* e) {
  std::vector<std::string_view> t;
  const char* p = b;
  while (p < e) {
    while (p < e && is_hspace(*p))
      ++p;
    if (p == e) break;
    const char* q = p;
    while (q < e && !is_hspace(*q))
      ++q;
    t.emplace_back(p, static_cast<std::size_t>(q - p));
    p = q;
  }
  return t;
}

bool is_blank(const char* b, const char* e) {
  for (const char* p = b; p < e; ++p)
    if (!is_hspace(*p)) return false;
  return true;
}

bool is_comment(const char* b, const char* e) {
  const char* p = b;
  while (p < e && is_hspace(*p))
    ++p;
  return p < e && *p == '%';
}

constexpr const char* kBannerForm =
    "'%%MatrixMarket matrix coordinate|array real|integer|pattern|complex "
    "general|symmetric|hermitian'";

}  // namespace

MMHeader parse_mm_header(const TextBuffer& buf, bool complete) {
  const std::string& path = buf.path();
  const char* p = buf.begin();
  const char* const ce = buf.content_end();
  std::int64_t line = 1;
  if (buf.size() >= 3 && static_cast<unsigned char>(p[0]) == 0xEF &&
      static_cast<unsigned char>(p[1]) == 0xBB && static_cast<unsigned char>(p[2]) == 0xBF) {
    p += 3;  // UTF-8 byte order mark
  }
  // Returns the next line [ls, le) and advances p past its '\n'; false at the end.
  auto next_line = [&](const char*& ls, const char*& le) -> bool {
    if (p >= ce) {
      if (!complete) throw NeedMoreHeader{};
      return false;
    }
    ls = p;
    le = p;
    while (*le != '\n')
      ++le;
    if (le == ce && !complete) throw NeedMoreHeader{};
    p = le + 1;
    return true;
  };

  MMHeader h;
  const char* ls = nullptr;
  const char* le = nullptr;
  // --- banner: the first line that is not blank ---
  for (;;) {
    if (!next_line(ls, le))
      throw InputError(path, 0, "the file is empty (no %%MatrixMarket banner)");
    if (!is_blank(ls, le)) break;
    ++line;
  }
  h.banner_line = line;
  auto words = split(ls, le);
  if (words.empty() || lower(words[0]) != "%%matrixmarket") {
    throw InputError(path, line,
                     "the %%MatrixMarket banner is missing: the first line must be " +
                         std::string(kBannerForm) + ", found " +
                         quote(std::string_view(ls, static_cast<std::size_t>(le - ls))));
  }
  if (words.size() != 5) {
    throw InputError(path, line,
                     "bad %%MatrixMarket banner: expected 4 words after %%MatrixMarket "
                     "(object format field symmetry), found " +
                         std::to_string(words.size() - 1));
  }
  const std::string object = lower(words[1]), format = lower(words[2]), field = lower(words[3]),
                    symmetry = lower(words[4]);
  if (object != "matrix") {
    throw InputError(path, line,
                     "bad %%MatrixMarket banner: object " + quote(words[1]) +
                         " is not supported (only 'matrix')");
  }
  if (format != "coordinate" && format != "array") {
    throw InputError(path, line,
                     "bad %%MatrixMarket banner: format " + quote(words[2]) +
                         " is neither 'coordinate' nor 'array'");
  }
  if (field != "real" && field != "integer" && field != "pattern" && field != "complex") {
    throw InputError(path, line,
                     "bad %%MatrixMarket banner: field " + quote(words[3]) +
                         " is not one of real, integer, pattern, complex");
  }
  if (symmetry == "skew-symmetric") {
    throw InputError(path, line,
                     "skew-symmetric matrices are not supported: eigsolve solves symmetric "
                     "(real) and Hermitian (complex) eigenproblems");
  }
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "hermitian") {
    throw InputError(path, line,
                     "bad %%MatrixMarket banner: symmetry " + quote(words[4]) +
                         " is not one of general, symmetric, hermitian, skew-symmetric");
  }
  if (field == "pattern" && format == "array") {
    throw InputError(path, line, "bad %%MatrixMarket banner: an array file cannot be 'pattern'");
  }
  h.info.format = format;
  h.info.field = field;
  h.info.symmetry = symmetry;

  // --- size line: the first line after the banner that is neither blank nor a comment ---
  for (;;) {
    ++line;
    if (!next_line(ls, le)) {
      throw InputError(path, buf.last_content_line(),
                       "the size line is missing (the file ends after the banner)");
    }
    if (!is_blank(ls, le) && !is_comment(ls, le)) break;
  }
  h.size_line = line;
  const bool coord = format == "coordinate";
  const std::size_t want = coord ? 3 : 2;
  const std::string form = coord ? "'rows columns entries'" : "'rows columns'";
  words = split(ls, le);
  const std::string found = quote(std::string_view(ls, static_cast<std::size_t>(le - ls)));
  if (words.size() != want) {
    throw InputError(path, line,
                     "bad size line: expected " + form + " (" + std::to_string(want) +
                         " integers) for a" + (coord ? " coordinate" : "n array") +
                         " file, found " + found);
  }
  std::int64_t v[3] = {0, 0, 0};
  for (std::size_t k = 0; k < want; ++k) {
    NumStatus s = parse_int64(words[k].data(), words[k].data() + words[k].size(), v[k]);
    if (s != NumStatus::kOk || v[k] < 0) {
      throw InputError(path, line,
                       "bad size line: " + quote(words[k]) +
                           " is not a non-negative integer (expected " + form + ")");
    }
  }
  if (v[0] != v[1]) {
    throw InputError(path, line,
                     "the matrix is " + std::to_string(v[0]) + " x " + std::to_string(v[1]) +
                         ", not square: eigsolve needs a square symmetric/Hermitian matrix");
  }
  h.info.rows = v[0];
  h.info.cols = v[1];
  if (coord) {
    h.info.entries = v[2];
  } else {
    if (v[0] > 3037000499LL) {
      throw InputError(path, line, "matrix size " + std::to_string(v[0]) + " is too large");
    }
    h.info.entries = v[0] * v[1];
  }
  h.body = p;
  return h;
}

MatrixFileInfo probe_matrix_market(const std::string& path) {
  std::size_t want = std::size_t(1) << 16;
  for (;;) {
    bool complete = false;
    TextBuffer buf = TextBuffer::load_prefix(path, want, &complete);
    try {
      return parse_mm_header(buf, complete).info;
    } catch (const NeedMoreHeader&) {
      want *= 4;  // a long comment block: read further
    }
  }
}

}  // namespace io_detail
}  // namespace eigsolve
