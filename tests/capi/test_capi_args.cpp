// The C API's checks that need no device (include/eigsolve/symv.h, docs/c-api.md): BLAS argument
// errors in xerbla's order, NULL pointers that would be used, quick returns that touch nothing,
// handle errors, status strings; the header as C. Runs on CI (no GPU) in every build.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "eigsolve/symv.h"

extern "C" int capi_c_bad_uplo_count(void);

namespace {

const bool kCuda = eigsolve_cuda_compiled() == 1;

/// The status a call that passed the argument checks gets before reaching a device: quick
/// returns succeed in a CUDA build and are "not compiled" in a CPU-only one.
int after_checks() {
  return kCuda ? EIGSOLVE_STATUS_SUCCESS : EIGSOLVE_STATUS_NOT_COMPILED;
}

double g_host[16];  // host memory: no call here reaches a device with it (see the last test)
double* const H = g_host;

TEST(CapiArgs, HeaderIsPlainC) {
  EXPECT_EQ(capi_c_bad_uplo_count(), 0);
}

TEST(CapiArgs, ArgumentErrorsInXerblaOrder) {
  EXPECT_EQ(eigsolve_dsymv('X', 4, 1.0, H, 4, H, 1, 0.0, H, 1), -1);
  EXPECT_EQ(eigsolve_dsymv('X', -1, 1.0, H, 0, H, 0, 0.0, H, 0), -1);  // uplo first
  EXPECT_EQ(eigsolve_dsymv('\0', 4, 1.0, H, 4, H, 1, 0.0, H, 1), -1);
  EXPECT_EQ(eigsolve_dsymv('L', -1, 1.0, H, 0, H, 0, 0.0, H, 0), -2);  // then n
  EXPECT_EQ(eigsolve_dsymv('U', -5, 1.0, H, 4, H, 1, 0.0, H, 1), -2);
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, H, 3, H, 0, 0.0, H, 0), -5);  // then lda
  EXPECT_EQ(eigsolve_dsymv('L', 0, 1.0, H, 0, H, 1, 0.0, H, 1), -5);  // lda >= max(1, n)
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, H, 4, H, 0, 0.0, H, 0), -7);  // then incx
  EXPECT_EQ(eigsolve_dsymv('L', 4, 1.0, H, 4, H, 1, 0.0, H, 0), -10);
  // BLAS checks before the quick return: n == 0 with a bad incx is still -7.
  EXPECT_EQ(eigsolve_dsymv('L', 0, 1.0, nullptr, 1, nullptr, 0, 1.0, nullptr, 1), -7);
  EXPECT_EQ(eigsolve_dsymv('L', 3, 0.0, nullptr, 3, nullptr, 1, 1.0, nullptr, 0), -10);
  for (int s = -10; s <= 6; ++s) {
    ASSERT_NE(eigsolve_status_string(s), nullptr);
    EXPECT_GT(std::strlen(eigsolve_status_string(s)), 0u) << s;
  }
  EXPECT_NE(std::string(eigsolve_status_string(-1)).find("uplo"), std::string::npos);
  EXPECT_NE(std::string(eigsolve_status_string(-10)).find("incy"), std::string::npos);
  EXPECT_STREQ(eigsolve_status_string(12345), "unknown eigsolve status");
}

TEST(CapiArgs, NullPointersThatWouldBeUsed) {
  EXPECT_EQ(eigsolve_dsymv('L', 3, 1.0, nullptr, 3, H, 1, 0.0, H, 1), -4);
  EXPECT_EQ(eigsolve_dsymv('L', 3, 1.0, H, 3, nullptr, 1, 0.0, H, 1), -6);
  EXPECT_EQ(eigsolve_dsymv('L', 3, 1.0, H, 3, H, 1, 0.0, nullptr, 1), -9);
  EXPECT_EQ(eigsolve_dsymv('U', 3, 2.0, H, 3, H, -1, 1.0, nullptr, 2), -9);
  // alpha == 0 reads neither A nor x; it still writes y.
  EXPECT_EQ(eigsolve_dsymv('L', 3, 0.0, nullptr, 3, nullptr, 1, 0.5, nullptr, 1), -9);
  // A complex alpha with a zero real part is not zero; a dd beta of 1 + tiny is not one.
  const eigsolve_complex_double ai = {0.0, 1.0}, one = {1.0, 0.0};
  EXPECT_EQ(eigsolve_zhemv('L', 3, ai, nullptr, 3, nullptr, 1, one, nullptr, 1), -4);
  const eigsolve_dd zero = {0.0, 0.0}, near_one = {1.0, 1e-300};
  EXPECT_EQ(eigsolve_ddsymv('L', 3, zero, nullptr, 3, nullptr, 1, near_one, nullptr, 1), -9);
  EXPECT_NE(std::string(eigsolve_last_error()), "");
}

TEST(CapiArgs, QuickReturnsTouchNothing) {
  // n == 0, or alpha == 0 and beta == 1: nothing is read or written, NULL is fine, and no device
  // is needed in a CUDA build.
  EXPECT_EQ(eigsolve_dsymv('L', 0, 1.0, nullptr, 1, nullptr, 1, 0.0, nullptr, 1), after_checks());
  EXPECT_EQ(eigsolve_ssymv('u', 0, 1.0f, nullptr, 1, nullptr, -1, 0.0f, nullptr, 1),
            after_checks());
  EXPECT_EQ(eigsolve_dsymv('l', 7, 0.0, nullptr, 7, nullptr, 2, 1.0, nullptr, -3), after_checks());
  const eigsolve_complex_float cz = {0.0f, 0.0f}, c1 = {1.0f, 0.0f};
  EXPECT_EQ(eigsolve_chemv('U', 5, cz, nullptr, 5, nullptr, 1, c1, nullptr, 1), after_checks());
  const eigsolve_complex_double zz = {0.0, 0.0}, z1 = {1.0, 0.0};
  EXPECT_EQ(eigsolve_zhemv('L', 5, zz, nullptr, 5, nullptr, 1, z1, nullptr, 1), after_checks());
  const eigsolve_dd d0 = {0.0, 0.0}, d1 = {1.0, 0.0};
  EXPECT_EQ(eigsolve_ddsymv('L', 5, d0, nullptr, 5, nullptr, 1, d1, nullptr, 1), after_checks());
  if (kCuda) {
    EXPECT_STREQ(eigsolve_last_error(), "");
  }
}

TEST(CapiArgs, Handles) {
  EXPECT_EQ(eigsolve_create(nullptr), EIGSOLVE_STATUS_INVALID_HANDLE);
  EXPECT_EQ(eigsolve_destroy(nullptr), EIGSOLVE_STATUS_SUCCESS);
  EXPECT_EQ(eigsolve_set_stream(nullptr, nullptr), EIGSOLVE_STATUS_INVALID_HANDLE);
  struct CUstream_st* s = nullptr;
  EXPECT_EQ(eigsolve_get_stream(nullptr, &s), EIGSOLVE_STATUS_INVALID_HANDLE);
  // Argument errors come first; then the backend; then the handle.
  EXPECT_EQ(eigsolve_dsymv_h(nullptr, 'Q', 3, 1.0, H, 3, H, 1, 0.0, H, 1), -1);
  EXPECT_EQ(eigsolve_dsymv_h(nullptr, 'L', 3, 1.0, H, 2, H, 1, 0.0, H, 1), -5);
  EXPECT_EQ(eigsolve_dsymv_h(nullptr, 'L', 0, 1.0, H, 1, H, 1, 0.0, H, 1),
            kCuda ? EIGSOLVE_STATUS_INVALID_HANDLE : EIGSOLVE_STATUS_NOT_COMPILED);
  eigsolve_handle_t h = reinterpret_cast<eigsolve_handle_t>(0x1);
  const int st = eigsolve_create(&h);
  if (!kCuda) {
    EXPECT_EQ(st, EIGSOLVE_STATUS_NOT_COMPILED);
    EXPECT_EQ(h, nullptr);
  } else if (st != EIGSOLVE_STATUS_SUCCESS) {
    EXPECT_EQ(st, EIGSOLVE_STATUS_NO_DEVICE) << eigsolve_last_error();
    EXPECT_EQ(h, nullptr);
  } else {
    // A device is present: quick returns on the handle succeed, then it is destroyed.
    EXPECT_EQ(eigsolve_dsymv_h(h, 'L', 0, 1.0, nullptr, 1, nullptr, 1, 0.0, nullptr, 1), 0);
    EXPECT_EQ(eigsolve_get_stream(h, &s), 0);
    EXPECT_EQ(s, nullptr);
    EXPECT_EQ(eigsolve_destroy(h), 0);
  }
}

TEST(CapiArgs, NoDeviceOrNotCompiledIsAStatusNotACrash) {
  // A valid, non-trivial call: on a machine without a device (CI) it must come back with a
  // status. (With a device, g_host is pageable host memory: -4 unless the device reads pageable
  // memory, in which case the call would run; skip that case here, tests/gpu covers it.)
  const int st = eigsolve_dsymv('L', 2, 1.0, H, 2, H, 1, 0.0, H + 8, 1);
  if (!kCuda) {
    EXPECT_EQ(st, EIGSOLVE_STATUS_NOT_COMPILED);
  } else {
    EXPECT_TRUE(st == EIGSOLVE_STATUS_NO_DEVICE || st == -4 || st == EIGSOLVE_STATUS_SUCCESS)
        << st << " " << eigsolve_status_string(st) << ": " << eigsolve_last_error();
  }
  EXPECT_GT(std::strlen(eigsolve_version()), 0u);
}

}  // namespace
