// A plain reference reader of Matrix Market files, written from docs/formats.md and nothing
// else (std::map per triangle, strtod/strtof for numbers), for the differential fuzz target:
// every file the real reader accepts must give the same matrix here, bit for bit, and every
// file it rejects must be rejected here (or need more memory than the limit).
#pragma once

#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fuzz {

template <class R>
struct Val {
  R re = 0, im = 0;
};

template <class R>
struct RefResult {
  enum Kind { kAccept, kReject, kTooBig } kind = kReject;
  std::string why;              // for kReject (what the reference objects to)
  std::int64_t n = 0;
  std::vector<Val<R>> a;        // n x n column-major, full (lower + mirrored upper)
};

inline bool ref_hspace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline std::vector<std::string_view> ref_words(std::string_view line) {
  std::vector<std::string_view> w;
  std::size_t k = 0;
  while (k < line.size()) {
    while (k < line.size() && ref_hspace(line[k]))
      ++k;
    std::size_t b = k;
    while (k < line.size() && !ref_hspace(line[k]))
      ++k;
    if (k > b) w.push_back(line.substr(b, k - b));
  }
  return w;
}

inline std::string ref_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return r;
}

inline bool ref_digit(char c) {
  return c >= '0' && c <= '9';
}

/// [+-]digits, fitting int64.
inline bool ref_int(std::string_view t, std::int64_t& out) {
  std::size_t k = 0;
  bool neg = false;
  if (k < t.size() && (t[k] == '+' || t[k] == '-')) neg = t[k++] == '-';
  if (k == t.size()) return false;
  __int128 v = 0;
  for (; k < t.size(); ++k) {
    if (!ref_digit(t[k])) return false;
    v = v * 10 + (t[k] - '0');
    if (v > (__int128(1) << 64)) return false;
  }
  if (neg) v = -v;
  if (v > INT64_MAX || v < INT64_MIN) return false;
  out = static_cast<std::int64_t>(v);
  return true;
}

/// [+-] (digits [. digits*] | . digits) [ (e|E|d|D) [+-] digits ], correctly rounded by
/// strtod/strtof (C locale); overflow is a rejection, underflow rounds.
template <class R>
bool ref_real(std::string_view t, R& out) {
  std::size_t k = 0;
  if (k < t.size() && (t[k] == '+' || t[k] == '-')) ++k;
  std::size_t digits = 0;
  while (k < t.size() && ref_digit(t[k]))
    ++k, ++digits;
  if (k < t.size() && t[k] == '.') {
    ++k;
    while (k < t.size() && ref_digit(t[k]))
      ++k, ++digits;
  }
  if (digits == 0) return false;
  std::string s(t.substr(0, k));
  if (k < t.size()) {
    const char c = t[k];
    if (c != 'e' && c != 'E' && c != 'd' && c != 'D') return false;
    s += 'e';
    ++k;
    if (k < t.size() && (t[k] == '+' || t[k] == '-')) s += t[k++];
    std::size_t e0 = k;
    while (k < t.size() && ref_digit(t[k]))
      s += t[k++];
    if (k == e0 || k != t.size()) return false;
  }
  R v;
  if constexpr (sizeof(R) == sizeof(float)) {
    v = std::strtof(s.c_str(), nullptr);
  } else {
    v = std::strtod(s.c_str(), nullptr);
  }
  if (!std::isfinite(v)) return false;
  out = v;
  return true;
}

/// The reference reader. R: float or double; cplx: the result type is complex (else real).
template <class R>
RefResult<R> reference_read(std::string_view f, bool cplx, std::uint64_t memory_limit) {
  RefResult<R> res;
  auto reject = [&](const char* why) {
    res.kind = RefResult<R>::kReject;
    res.why = why;
    return res;
  };
  if (f.size() >= 3 && f.substr(0, 3) == "\xEF\xBB\xBF") f.remove_prefix(3);
  // Lines (the last one may lack '\n').
  std::vector<std::string_view> lines;
  for (std::size_t b = 0; b < f.size();) {
    std::size_t e = f.find('\n', b);
    if (e == std::string_view::npos) e = f.size();
    lines.push_back(f.substr(b, e - b));
    b = e + 1;
  }
  auto blank = [](std::string_view l) { return ref_words(l).empty(); };
  auto comment = [](std::string_view l) {
    auto w = ref_words(l);
    return !w.empty() && w[0][0] == '%';
  };
  std::size_t k = 0;
  while (k < lines.size() && blank(lines[k]))
    ++k;
  if (k == lines.size()) return reject("empty");
  auto w = ref_words(lines[k]);
  if (ref_lower(w[0]) != "%%matrixmarket" || w.size() != 5) return reject("banner");
  const std::string object = ref_lower(w[1]), format = ref_lower(w[2]), field = ref_lower(w[3]),
                    sym = ref_lower(w[4]);
  if (object != "matrix") return reject("object");
  if (format != "coordinate" && format != "array") return reject("format");
  if (field != "real" && field != "integer" && field != "pattern" && field != "complex")
    return reject("field");
  if (sym != "general" && sym != "symmetric" && sym != "hermitian") return reject("symmetry");
  if (format == "array" && field == "pattern") return reject("array pattern");
  const bool coord = format == "coordinate", general = sym == "general";
  const bool herm = sym == "hermitian", csym = field == "complex" && sym == "symmetric";
  ++k;
  while (k < lines.size() && (blank(lines[k]) || comment(lines[k])))
    ++k;
  if (k == lines.size()) return reject("no size line");
  w = ref_words(lines[k]);
  if (w.size() != (coord ? 3u : 2u)) return reject("size line words");
  std::int64_t sz[3] = {0, 0, 0};
  for (std::size_t q = 0; q < w.size(); ++q)
    if (!ref_int(w[q], sz[q]) || sz[q] < 0) return reject("size line number");
  if (sz[0] != sz[1]) return reject("not square");
  const std::int64_t n = sz[0];
  if (!coord && n > 3037000499LL) return reject("array too large");
  if (field == "complex" && !cplx) return reject("complex file, real precision");
  // Bytes after the size line.
  std::size_t body_off = static_cast<std::size_t>(lines[k].data() - f.data()) + lines[k].size() + 1;
  const std::int64_t bytes =
      body_off >= f.size() ? 0 : static_cast<std::int64_t>(f.size() - body_off);
  const std::int64_t values = general ? n * n : n * (n + 1) / 2;
  if (!coord && values > bytes) return reject("array bytes");
  const std::size_t scalar = (cplx ? 2 : 1) * sizeof(R);
  if (static_cast<double>(n) * static_cast<double>(n) * scalar > 1.8e19 ||
      static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * scalar > memory_limit) {
    res.kind = RefResult<R>::kTooBig;
    return res;
  }
  res.n = n;
  const int nvals = field == "pattern" ? 0 : field == "complex" ? 2 : 1;
  auto value = [&](const std::vector<std::string_view>& t, std::size_t first, Val<R>& v) {
    if (field == "pattern") {
      v = {R(1), R(0)};
      return true;
    }
    for (int c = 0; c < nvals; ++c) {
      R x;
      if (field == "integer") {
        std::int64_t i;
        if (!ref_int(t[first + c], i)) return false;
        x = static_cast<R>(i);
      } else if (!ref_real(t[first + c], x)) {
        return false;
      }
      (c == 0 ? v.re : v.im) = x;
    }
    return true;
  };
  std::vector<std::vector<std::string_view>> data;
  for (++k; k < lines.size(); ++k)
    if (!blank(lines[k]) && !comment(lines[k])) data.push_back(ref_words(lines[k]));
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<Val<R>> A(nn);
  auto at = [&](std::int64_t i, std::int64_t j) -> Val<R>& {
    return A[static_cast<std::size_t>(i + j * n)];
  };
  if (coord) {
    if (static_cast<std::int64_t>(data.size()) != sz[2]) return reject("entry count");
    // Sums per position, in file order; first file index of each position.
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<Val<R>, std::size_t>> sum;
    for (std::size_t e = 0; e < data.size(); ++e) {
      const auto& t = data[e];
      if (t.size() != static_cast<std::size_t>(2 + nvals)) return reject("entry fields");
      std::int64_t i, j;
      if (!ref_int(t[0], i) || !ref_int(t[1], j) || i < 1 || j < 1 || i > n || j > n)
        return reject("index");
      Val<R> v;
      if (!value(t, 2, v)) return reject("value");
      if (!general && i == j && v.im != 0) return reject("hermitian diagonal");
      if (csym && v.im != 0) return reject("complex symmetric");
      auto key = std::make_pair(i - 1, j - 1);
      auto it = sum.find(key);
      if (it == sum.end()) {
        sum.emplace(key, std::make_pair(v, e));
      } else {
        Val<R>& s = it->second.first;
        s.re = s.re + v.re;
        s.im = s.im + v.im;
        if (!std::isfinite(s.re) || !std::isfinite(s.im)) return reject("sum overflows");
      }
    }
    for (const auto& [key, sv] : sum)
      if (general || key.first >= key.second) at(key.first, key.second) = sv.first;
    for (const auto& [key, sv] : sum) {
      const auto [i, j] = key;
      if (general || i >= j) continue;
      // An upper entry (i < j) of a symmetric/Hermitian file: (j, i) in the lower triangle.
      const Val<R> m{sv.first.re, herm ? -sv.first.im : sv.first.im};
      auto low = sum.find(std::make_pair(j, i));
      if (low == sum.end()) {
        at(j, i) = m;
      } else {
        const Val<R>& l = low->second.first;
        if (!(l.re == m.re && l.im == m.im)) return reject("triangles disagree");
        if (sv.second < low->second.second) at(j, i) = m;  // the first one in the file
      }
    }
  } else {
    if (static_cast<std::int64_t>(data.size()) != values) return reject("value count");
    std::int64_t i = 0, j = 0;
    for (const auto& t : data) {
      if (t.size() != static_cast<std::size_t>(nvals)) return reject("value fields");
      Val<R> v;
      if (!value(t, 0, v)) return reject("value");
      if (!general && i == j && v.im != 0) return reject("hermitian diagonal");
      if (csym && v.im != 0) return reject("complex symmetric");
      at(i, j) = v;
      if (++i == n) {
        ++j;
        i = general ? 0 : j;
      }
    }
  }
  if (general) {
    for (std::int64_t j = 0; j < n; ++j) {
      if (at(j, j).im != 0) return reject("general diagonal not real");
      for (std::int64_t i = j + 1; i < n; ++i)
        if (!(at(i, j).re == at(j, i).re && at(i, j).im == -at(j, i).im))
          return reject("general not symmetric");
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    at(j, j).im = 0;
    for (std::int64_t i = j + 1; i < n; ++i)
      at(j, i) = Val<R>{at(i, j).re, -at(i, j).im};
  }
  if (!cplx)
    for (auto& v : A)
      v.im = 0;
  res.kind = RefResult<R>::kAccept;
  res.a = std::move(A);
  return res;
}

}  // namespace fuzz
