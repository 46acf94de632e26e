// Unit tests of the app/ helpers: the Hadamard generator (SHA-256: test_digests.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/generate.hpp"

using namespace eigsolve;

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
