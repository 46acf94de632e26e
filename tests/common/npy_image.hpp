// A NumPy .npy file image for the reader tests: version 1.0, the header dict padded with spaces
// to a 64-byte boundary and ended by '\n', then the raw data bytes.
#pragma once

#include <string>

namespace eigsolve::test_util {

inline std::string npy_image(const std::string& dict, const std::string& data) {
  std::string d = dict;
  while ((10 + d.size() + 1) % 64 != 0)
    d += ' ';
  d += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(d.size() & 0xff);
  out += static_cast<char>(d.size() >> 8);
  return out + d + data;
}

}  // namespace eigsolve::test_util
