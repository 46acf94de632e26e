// Unit tests of the app/ helpers: SHA-256, JSON, the Hadamard generator.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/generate.hpp"
#include "app/json.hpp"
#include "app/sha256.hpp"

using namespace eigsolve;

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc", 3),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(sha256_hex(two.data(), two.size()),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  Sha256 h;  // fed in uneven pieces
  for (std::size_t i = 0; i < million.size(); i += 777)
    h.update(million.data() + i, std::min<std::size_t>(777, million.size() - i));
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Json, WritesNestedObjects) {
  JsonWriter j;
  j.begin_object().value("a", 1).value("b", "x\"y").begin_object("c").value("d", 0.5).end_object();
  j.value("e", std::nan("")).end_object();
  EXPECT_EQ(
      j.str(),
      "{\n  \"a\": 1,\n  \"b\": \"x\\\"y\",\n  \"c\": {\n    \"d\": 0.5\n  },\n  \"e\": null\n}\n");
}

TEST(Generate, HadamardMatrixHasTheExactSpectrumInvariants) {
  const index_t n = 64;
  auto lam = hadamard_spectrum(n, "clustered");
  for (bool cplx : {false, true}) {
    auto A = hadamard_matrix(n, lam, cplx);
    double trace = 0, lamsum = 0, fro = 0, lam2 = 0;
    for (index_t i = 0; i < n; ++i) {
      trace += A(i, i).re;
      EXPECT_EQ(A(i, i).im, 0.0);
      lamsum += lam[i];
      lam2 += lam[i] * lam[i];
      for (index_t j = 0; j < n; ++j) {
        EXPECT_EQ(A(i, j).re, A(j, i).re);
        EXPECT_EQ(A(i, j).im, -A(j, i).im);
        fro += A(i, j).re * A(i, j).re + A(i, j).im * A(i, j).im;
      }
    }
    EXPECT_EQ(trace, lamsum);  // exact: every entry is an integer / 64
    EXPECT_EQ(fro, lam2);      // ||A||_F^2 = sum lambda^2, exact as well
  }
  EXPECT_THROW(hadamard_matrix(48, std::vector<double>(48, 1.0), false), std::exception);
}
