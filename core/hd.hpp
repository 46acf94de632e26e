// Host/device annotations shared by every canonical kernel.
#pragma once

#if defined(__CUDACC__)
#define ES_HD __host__ __device__
#define ES_HD_INLINE __host__ __device__ __forceinline__
#else
#define ES_HD
#define ES_HD_INLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define ES_FMA(a, b, c) ::fma((a), (b), (c))
#else
#include <cmath>
#define ES_FMA(a, b, c) std::fma((a), (b), (c))
#endif
