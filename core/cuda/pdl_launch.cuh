// One kernel launch, optionally as a programmatic dependent launch (sm_90): with `pdl` the
// kernel may be launched while the kernel before it in the stream finishes; the kernel itself
// must begin with griddepcontrol.wait, so that only the launch latency overlaps, never data.
// Used by the tridiagonalization's panel kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace eigsolve {

template <class... K, class... A>
cudaError_t launch_pdl(void (*kernel)(K...), dim3 grid, dim3 block, std::size_t smem,
                       cudaStream_t stream, bool pdl, A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

}  // namespace eigsolve
