// SYMV/HEMV kernels and launcher, instantiated for one scalar type (see symv_kernels.cuh).
#include "symv/cuda/symv_launch.cuh"

EIGSOLVE_SYMV_GPU_INSTANTIATE(eigsolve::Complex<double>)
