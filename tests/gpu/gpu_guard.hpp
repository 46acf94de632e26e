// GPU tests skip loudly when there is no device, and fail instead when EIGSOLVE_REQUIRE_GPU=1.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/context.hpp"

#define EIGSOLVE_REQUIRE_DEVICE()                                                             \
  do {                                                                                        \
    if (::eigsolve::cuda_device_count() == 0) {                                               \
      const char* req = std::getenv("EIGSOLVE_REQUIRE_GPU");                                  \
      if (req && std::string(req) == "1") FAIL() << "EIGSOLVE_REQUIRE_GPU=1 but no device";   \
      GTEST_SKIP() << "SKIPPED: no CUDA device (set EIGSOLVE_REQUIRE_GPU=1 to fail instead)"; \
    }                                                                                         \
  } while (0)
