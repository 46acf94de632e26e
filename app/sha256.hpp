// SHA-256 (FIPS 180-4), for the eigenvalue digest of the report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace eigsolve {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t len);
  /// Finishes the hash and returns it as 64 lowercase hex digits.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);
  std::uint32_t h_[8];
  unsigned char buf_[64];
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;
};

/// SHA-256 of a byte range, as hex.
std::string sha256_hex(const void* data, std::size_t len);

}  // namespace eigsolve
