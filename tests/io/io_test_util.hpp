// Helpers shared by the io/ tests: temporary folders and files, error expectations.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "io/matrix_io.hpp"

namespace eigsolve {
namespace iotest {

inline std::string data_path(const std::string& name) {
  return std::string(EIGSOLVE_TEST_DATA) + "/matrices/" + name;
}

/// A fresh folder under /tmp, removed (with its files) at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/eigsolve_io_test.XXXXXX";
    char* d = ::mkdtemp(tmpl);
    if (d == nullptr) std::abort();
    path_ = d;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  /// Writes `content` byte for byte to a file in the folder and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    std::string p = file(name);
    std::ofstream f(p, std::ios::binary);
    f << content;
    return p;
  }
  /// Number of entries in the folder.
  int count() const {
    std::string cmd = "ls -A '" + path_ + "' | wc -l";
    FILE* p = ::popen(cmd.c_str(), "r");
    int n = -1;
    if (p) {
      if (std::fscanf(p, "%d", &n) != 1) n = -1;
      ::pclose(p);
    }
    return n;
  }

 private:
  std::string path_;
};

/// Runs f, expects an InputError whose line is `line` and whose message contains `needle`.
template <class F>
void expect_input_error(F&& f, std::int64_t line, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected InputError containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.message()).find(needle), std::string::npos) << e.what();
  }
}

/// read_matrix<T> of a text, expecting a rejection at `line` mentioning `needle`.
template <class T = double>
void expect_rejected(const std::string& text, std::int64_t line, const std::string& needle) {
  TempDir d;
  std::string p = d.write("m.mtx", text);
  expect_input_error([&] { read_matrix<T>(p); }, line, needle);
}

}  // namespace iotest
}  // namespace eigsolve
