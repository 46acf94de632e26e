// Hermitian test matrices with structured exact zeros (shared by the CPU and GPU suites), and the
// negation of a rounded value for the tests' literal transcriptions of the canonical orders.
//
// Where a canonical order negates a rounded result (u = -(tau * s), ny = -s), the spec means the
// rounded value negated: -(+0) = -0. GCC folds the negation of an fma into fnmsub / fnmadd, which
// give +0 for an exact zero; a transcription compiled with the same flags as the library would
// fold the same way and agree with a wrong library. `rounded(x)` hides x from the optimizer, so
// `-rounded(x)` is the spec's negation whatever the compiler does.
//
// The zeros of the matrices below are -0 (or +0 and -0 mixed): only a -0 can carry the
// difference further (a chain from +0 absorbs the sign of a zero term: +0 + -0 = +0), so these
// are the inputs on which the sign of a zero shows in the results.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/precision.hpp"
#include "tests/common/random_scalar.hpp"

namespace eigsolve::test_util {

/// x as it is rounded, opaque to the optimizer (a memory round trip it cannot see through).
template <class X>
X rounded(X x) {
  asm volatile("" : "+m"(x));
  return x;
}

/// The kinds of structure. Zeros are -0 (both components) unless `mixed_signs`.
enum class Zeros {
  block_diagonal,  // blocks of orders 3, 1, 5, 2, 8, 4, 1, 6, ... along the diagonal
  two_by_two,      // one random 2 x 2 block at rows n/2, n/2 + 1 in a zero matrix
  diagonal,        // a random diagonal
  zero_lines,      // random, with rows and columns 1, 4, 7, ... zero (their diagonal -0 too)
  mixed_signs,     // block diagonal, every zero component +0 or -0 at random
  all_zero,        // every entry -0
};

inline const std::vector<Zeros>& all_zero_kinds() {
  static const std::vector<Zeros> k = {Zeros::block_diagonal, Zeros::two_by_two,  Zeros::diagonal,
                                       Zeros::zero_lines,     Zeros::mixed_signs, Zeros::all_zero};
  return k;
}

inline std::string zeros_name(Zeros z) {
  switch (z) {
    case Zeros::block_diagonal:
      return "block diagonal";
    case Zeros::two_by_two:
      return "2x2 block in a zero matrix";
    case Zeros::diagonal:
      return "diagonal";
    case Zeros::zero_lines:
      return "zero rows and columns";
    case Zeros::mixed_signs:
      return "block diagonal, +0 and -0";
    case Zeros::all_zero:
      return "all -0";
  }
  return "?";
}

/// Block index of row i for the block-diagonal kinds.
inline index_t zero_block_of(index_t i) {
  static const index_t orders[] = {3, 1, 5, 2, 8, 4, 1, 6};
  index_t start = 0, blk = 0;
  for (;;) {
    const index_t o = orders[blk % 8];
    if (i < start + o) return blk;
    start += o;
    ++blk;
  }
}

/// Whether entry (i, j), i >= j, is a structural zero of kind z.
inline bool structural_zero(Zeros z, index_t n, index_t i, index_t j) {
  switch (z) {
    case Zeros::block_diagonal:
    case Zeros::mixed_signs:
      return zero_block_of(i) != zero_block_of(j);
    case Zeros::two_by_two: {
      const index_t p = n / 2;
      return !(i >= p && i <= p + 1 && j >= p && j <= p + 1);
    }
    case Zeros::diagonal:
      return i != j;
    case Zeros::zero_lines:
      return i % 3 == 1 || j % 3 == 1;
    case Zeros::all_zero:
      return true;
  }
  return false;
}

/// A zero of T: -0 in every component, or each component's sign at random (mixed).
template <class T>
T signed_zero(bool mixed, std::mt19937_64& g) {
  using R = real_t<T>;
  auto one = [&]() { return (!mixed || (g() & 1)) ? -R(0) : R(0); };
  if constexpr (is_complex_v<T>) {
    const R re = one();
    return T(re, one());
  } else {
    return T(one());
  }
}

/// Full Hermitian matrix (both triangles, column-major n x n) of kind z: random entries (real
/// diagonal) except the structural zeros. The upper triangle is conj of the lower (conj(-0 - 0i)
/// is -0 + 0i).
template <class T>
std::vector<T> structured_hermitian(index_t n, Zeros z, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  const bool mixed = z == Zeros::mixed_signs;
  std::vector<T> F(static_cast<size_t>(n * n));
  for (index_t j = 0; j < n; ++j)
    for (index_t i = j; i < n; ++i) {
      T a = random_scalar<T>(g);
      if (i == j) a = T(real_part(a));
      if (structural_zero(z, n, i, j)) {
        a = signed_zero<T>(mixed, g);
        if (i == j) a = T(real_part(a));  // a real -0 (imaginary part +0)
      }
      F[static_cast<size_t>(i + n * j)] = a;
      F[static_cast<size_t>(j + n * i)] = conj(a);
    }
  return F;
}

/// The band of half-width b (band storage, ldab >= b + 1, AB[k + c * ldab] = F(c + k, c)) of
/// structured_hermitian(n, z, seed); NaN everywhere else (entries a chase must not read).
template <class T>
std::vector<T> structured_band(index_t n, index_t b, index_t ldab, Zeros z, std::uint64_t seed) {
  using R = real_t<T>;
  const R nan = R(std::numeric_limits<double>::quiet_NaN());
  const std::vector<T> F = structured_hermitian<T>(n, z, seed);
  std::vector<T> AB(static_cast<size_t>(ldab * (n > 1 ? n : 1)), make_scalar<T>(nan, nan));
  for (index_t c = 0; c < n; ++c)
    for (index_t k = 0; k <= b && c + k < n; ++k)
      AB[static_cast<size_t>(k + c * ldab)] = F[static_cast<size_t>((c + k) + c * n)];
  return AB;
}

/// n x m vectors (ld ldz) with structured exact zeros: column j % 4 == 0 all -0; 1: random on rows
/// 3 .. 3 + n/4, -0 elsewhere; 2: random with +0 or -0 at random on every third row; 3: random.
/// Rows n .. ldz-1 hold 7 (never to be written).
template <class T>
std::vector<T> structured_z(index_t n, index_t m, index_t ldz, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<T> Z(static_cast<size_t>(ldz * m), T(7));
  for (index_t j = 0; j < m; ++j)
    for (index_t i = 0; i < n; ++i) {
      T z = random_scalar<T>(g);
      if (j % 4 == 0 || (j % 4 == 1 && (i < 3 || i >= 3 + n / 4)))
        z = -T(0);
      else if (j % 4 == 2 && i % 3 == 0)
        z = signed_zero<T>(true, g);
      Z[static_cast<size_t>(i + ldz * j)] = z;
    }
  return Z;
}

}  // namespace eigsolve::test_util
