// The column-major order of the stored 64x64 tiles of a lower triangle (nt tile rows), shared by
// the SYMV kernels and the rank-2k update:
//
//   t = 0 1 2 ...            tile column J holds tiles I = J .. nt-1; it starts at
//   (0,0) (1,0) ... (nt-1,0)  start(J) = J*nt - J*(J-1)/2
//   (1,1) (2,1) ...
#pragma once

#include "core/precision.hpp"

namespace eigsolve {
namespace symv_cuda {

/// Tile index t -> (I, J): a floating-point guess of J, then an exact integer fix-up.
__device__ __forceinline__ void tile_coords(index_t t, index_t nt, index_t& I, index_t& J) {
  const double b = 2.0 * double(nt) + 1.0;
  index_t j = index_t((b - sqrt(b * b - 8.0 * double(t))) * 0.5);
  if (j < 0) j = 0;
  if (j > nt - 1) j = nt - 1;
  auto start = [nt](index_t c) { return c * nt - c * (c - 1) / 2; };
  while (j > 0 && start(j) > t)
    --j;
  while (j + 1 < nt && start(j + 1) <= t)
    ++j;
  J = j;
  I = j + (t - start(j));
}

}  // namespace symv_cuda
}  // namespace eigsolve
