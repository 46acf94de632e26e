// The one exception hierarchy of eigsolve. Only app/main.cpp catches; it prints what() on one
// line and exits with exit_code(). Device code never throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace eigsolve {

/// Process exit codes (documented in --help and the README).
enum ExitCode : int {
  kExitOk = 0,
  kExitDiffer = 1,     ///< `eigsolve compare`: the files differ (beyond --rtol)
  kExitUsage = 2,      ///< bad command line
  kExitInput = 3,      ///< invalid or unreadable input file
  kExitNumerical = 4,  ///< numerical or LAPACK failure
  kExitDevice = 5,     ///< CUDA/cuBLAS/cuSOLVER error, no device, backend not compiled
  kExitOutput = 6,     ///< an output file could not be written
  kExitMemory = 7,     ///< out of memory
  kExitInternal = 70,  ///< a bug: an unexpected exception
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, int code = kExitInternal)
      : std::runtime_error(what), code_(code) {}
  int exit_code() const { return code_; }

 private:
  int code_;
};

/// Bad command line or bad option values.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what, kExitUsage) {}
};

/// Invalid input data: formatted as "FILE:LINE: message" (line 0 = whole file).
class InputError : public Error {
 public:
  InputError(const std::string& file, std::int64_t line, const std::string& msg)
      : Error(format(file, line, msg), kExitInput), file_(file), line_(line), msg_(msg) {}
  const std::string& file() const { return file_; }
  std::int64_t line() const { return line_; }
  const std::string& message() const { return msg_; }

 private:
  static std::string format(const std::string& file, std::int64_t line, const std::string& msg) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + msg : file + ": " + msg;
  }
  std::string file_;
  std::int64_t line_;
  std::string msg_;
};

/// Inconsistent sizes passed to a library routine.
class DimensionError : public Error {
 public:
  explicit DimensionError(const std::string& what) : Error(what, kExitUsage) {}
};

/// A numerical failure (no convergence, non-finite intermediate results).
class NumericalError : public Error {
 public:
  explicit NumericalError(const std::string& what) : Error(what, kExitNumerical) {}
};

/// A LAPACK routine returned info != 0.
class LapackError : public Error {
 public:
  LapackError(const std::string& routine, std::int64_t info)
      : Error("LAPACK " + routine + " failed with info = " + std::to_string(info), kExitNumerical),
        info_(info) {}
  std::int64_t info() const { return info_; }

 private:
  std::int64_t info_;
};

/// CUDA runtime, cuBLAS or cuSOLVER error, or no usable device.
class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& what) : Error(what, kExitDevice) {}
};

/// The check a GPU stage makes before it allocates: when `need` bytes exceed the `free_b` that
/// cudaMemGetInfo reported, DeviceError "the GPU cannot hold SUBJECT needs NEED [more ]bytes of
/// device memory, FREE are available (of TOTAL)" (`more`: NEED is on top of what the stage
/// already holds).
inline void require_device_memory(const std::string& subject, std::uint64_t need,
                                  std::uint64_t free_b, std::uint64_t total_b, bool more = false) {
  if (need <= free_b) return;
  throw DeviceError("the GPU cannot hold " + subject + " needs " + std::to_string(need) +
                    (more ? " more" : "") + " bytes of device memory, " + std::to_string(free_b) +
                    " are available (of " + std::to_string(total_b) + ")");
}

/// A backend that this build does not contain.
class NotCompiled : public Error {
 public:
  explicit NotCompiled(const std::string& backend)
      : Error("this eigsolve was built without " + backend +
                  " support (reconfigure with -DEIGSOLVE_WITH_CUDA=ON on a machine with nvcc)",
              kExitDevice) {}
};

/// An allocation failed.
class OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& where, std::uint64_t bytes)
      : Error("out of memory in " + where + ": " + std::to_string(bytes) + " bytes requested",
              kExitMemory) {}
};

/// An output file could not be written.
class OutputError : public Error {
 public:
  OutputError(const std::string& path, const std::string& msg)
      : Error(path + ": " + msg, kExitOutput) {}
};

}  // namespace eigsolve
