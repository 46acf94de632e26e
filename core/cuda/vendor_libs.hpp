// cuBLAS and cuSOLVER loaded on first use (dlopen), not linked. Linking them costs every process
// ~0.4-0.5 s at start-up (libcublasLt's relocations and initialisers: measured in session 47,
// an empty program linked to libcublas 0.37 s, to libcusolver 0.51 s), also `eigsolve --version`
// and every CPU run; only `eigsolve bench` (the vendor baselines) and the GPU residual check
// call them. core/cuda/vendor_libs.cpp defines the entry points the project uses (their C
// names, the headers' prototypes), each forwarding to the library's own through dlsym.
#pragma once

namespace eigsolve::vendor {

enum class Library { cublas, cusolver };

/// The address of `name` in the library, loading it on the first call (the build's file, else
/// its soname from the loader's search path). Throws DeviceError naming the library and the
/// loader's message when it cannot be loaded or has no such symbol.
void* symbol(Library lib, const char* name);

/// Where `lib` is loaded from (the path or soname that dlopen accepted); loads it. For reports
/// and tests.
const char* loaded_from(Library lib);

}  // namespace eigsolve::vendor
