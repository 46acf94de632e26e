// SHA-256 through OpenSSL's libcrypto (EVP), for the eigenvalue digest of the summary and report.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

struct evp_md_ctx_st;  // EVP_MD_CTX, kept out of this header

namespace eigsolve {

/// Incremental SHA-256 (FIPS 180-4) on libcrypto's EVP interface. Errors of libcrypto (which
/// cannot happen for SHA-256 short of memory exhaustion) are thrown as eigsolve::Error.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t len);
  /// Finishes the hash and returns it as 64 lowercase hex digits (call once).
  std::string hex_digest();

 private:
  evp_md_ctx_st* ctx_;
};

/// SHA-256 of a byte range, as 64 lowercase hex digits.
std::string sha256_hex(const void* data, std::size_t len);

/// The eigenvalue digest: SHA-256 of the little-endian IEEE bytes of the eigenvalues in the
/// order given (ascending in every caller), dd: hi then lo of each value. R is float, double
/// or dd_real. Comparable across backends, thread counts and machines.
template <class R>
std::string eigenvalue_digest(const std::vector<R>& w);

}  // namespace eigsolve
