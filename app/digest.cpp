#include "app/digest.hpp"

#include <openssl/evp.h>

#include <type_traits>

#include "core/dd_real.hpp"
#include "core/errors.hpp"

namespace eigsolve {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    throw Error("libcrypto: cannot initialize SHA-256");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_);
}

void Sha256::update(const void* data, std::size_t len) {
  if (EVP_DigestUpdate(ctx_, data, len) != 1) throw Error("libcrypto: SHA-256 update failed");
}

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_, md, &len) != 1 || len != 32)
    throw Error("libcrypto: SHA-256 final failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 0xf];
  }
  return out;
}

std::string sha256_hex(const void* data, std::size_t len) {
  Sha256 h;
  h.update(data, len);
  return h.hex_digest();
}

template <class R>
std::string eigenvalue_digest(const std::vector<R>& w) {
  static_assert(sizeof(double) == 8 && sizeof(float) == 4, "IEEE binary32/binary64 expected");
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the digest is of little-endian bytes");
  Sha256 h;
  if constexpr (std::is_same<R, dd_real>::value) {
    for (const R& x : w) {
      h.update(&x.hi, sizeof(double));
      h.update(&x.lo, sizeof(double));
    }
  } else {
    h.update(w.data(), w.size() * sizeof(R));  // contiguous, little-endian on every target
  }
  return h.hex_digest();
}

template std::string eigenvalue_digest<float>(const std::vector<float>&);
template std::string eigenvalue_digest<double>(const std::vector<double>&);
template std::string eigenvalue_digest<dd_real>(const std::vector<dd_real>&);

}  // namespace eigsolve
