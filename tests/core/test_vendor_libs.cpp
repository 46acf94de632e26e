// cuBLAS and cuSOLVER loaded on first use (core/cuda/vendor_libs.hpp): the libraries load, the
// project's entry points reach them (on a machine without a GPU their handles fail cleanly with
// the libraries' own status, never a crash), a missing symbol is a DeviceError naming it, and the
// eigsolve executable starts without them.
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/cuda/vendor_libs.hpp"
#include "core/errors.hpp"

using eigsolve::vendor::Library;

TEST(VendorLibs, LoadOnFirstUseAndForward) {
  const std::string cb = eigsolve::vendor::loaded_from(Library::cublas);
  const std::string cs = eigsolve::vendor::loaded_from(Library::cusolver);
  EXPECT_NE(cb.find("libcublas"), std::string::npos) << cb;
  EXPECT_NE(cs.find("libcusolver"), std::string::npos) << cs;
  // The forwarders call the libraries' own functions: with a device a handle is made and
  // destroyed; without one the libraries say so by their status.
  cublasHandle_t h = nullptr;
  const cublasStatus_t sb = cublasCreate(&h);
  if (sb == CUBLAS_STATUS_SUCCESS) {
    EXPECT_EQ(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED), CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
  } else {
    EXPECT_NE(sb, CUBLAS_STATUS_SUCCESS);
  }
  cusolverDnHandle_t s = nullptr;
  const cusolverStatus_t ss = cusolverDnCreate(&s);
  if (ss == CUSOLVER_STATUS_SUCCESS) {
    EXPECT_EQ(cusolverDnDestroy(s), CUSOLVER_STATUS_SUCCESS);
  }
  // Every entry point the project forwards exists in the loaded libraries.
  for (const char* f : {"cublasCreate_v2", "cublasDestroy_v2", "cublasSgemm_v2", "cublasDgemm_v2",
                        "cublasCgemm_v2", "cublasZgemm_v2", "cublasSsymv_v2", "cublasDsymv_v2",
                        "cublasChemv_v2", "cublasZhemv_v2", "cublasSetAtomicsMode"})
    EXPECT_NE(eigsolve::vendor::symbol(Library::cublas, f), nullptr) << f;
  for (const char* f :
       {"cusolverDnCreate", "cusolverDnDestroy", "cusolverDnCreateParams",
        "cusolverDnDestroyParams", "cusolverDnSetDeterministicMode", "cusolverDnSsyevd_bufferSize",
        "cusolverDnSsyevd", "cusolverDnDsyevd_bufferSize", "cusolverDnDsyevd",
        "cusolverDnCheevd_bufferSize", "cusolverDnCheevd", "cusolverDnZheevd_bufferSize",
        "cusolverDnZheevd", "cusolverDnXsyevd_bufferSize", "cusolverDnXsyevd"})
    EXPECT_NE(eigsolve::vendor::symbol(Library::cusolver, f), nullptr) << f;
  try {
    eigsolve::vendor::symbol(Library::cublas, "cublasNoSuchFunction");
    ADD_FAILURE() << "a missing symbol must throw";
  } catch (const eigsolve::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("cublasNoSuchFunction"), std::string::npos) << e.what();
  }
}

// The executable does not load them at start-up (they cost ~0.4-0.5 s there): `eigsolve
// --version` runs without cuBLAS or cuSOLVER among its mapped objects.
TEST(VendorLibs, ExecutableDoesNotLinkThem) {
  const std::string cmd =
      std::string("LD_TRACE_LOADED_OBJECTS=1 ") + EIGSOLVE_BIN_DIR + "/eigsolve";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, p))
    out += buf;
  ASSERT_EQ(pclose(p), 0) << out;
  EXPECT_NE(out.find("libc.so"), std::string::npos) << out;  // the listing worked
  EXPECT_EQ(out.find("libcublas"), std::string::npos) << out;
  EXPECT_EQ(out.find("libcusolver"), std::string::npos) << out;
}
