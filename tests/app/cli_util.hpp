// Helpers for the end-to-end tests: run the eigsolve binary and read what it wrote.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cli {

inline std::string bin() {
  return std::string(EIGSOLVE_BIN_DIR) + "/eigsolve";
}
inline std::string matrix(const std::string& name) {
  return std::string(EIGSOLVE_TEST_DATA) + "/matrices/" + name;
}

struct Result {
  int code = -1;
  std::string out, err;
};

/// A fresh temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/eigsolve-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Runs `eigsolve ARGS` through the shell; captures exit code, stdout and stderr.
inline Result run(const std::string& args) {
  static int counter = 0;
  std::string base =
      "/tmp/eigsolve-cli-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  std::string cmd = bin() + " " + args + " >" + base + ".out 2>" + base + ".err";
  int st = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

inline std::vector<double> numbers(const std::string& text) {
  std::vector<double> v;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok)
    v.push_back(std::strtod(tok.c_str(), nullptr));
  return v;
}

}  // namespace cli
