// Sets environment variables for a scope (nullptr: unset) and restores what was there: tests of
// the knobs (EIGSOLVE_GPU_*) that must not change a bit.
#pragma once

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace eigsolve::test_util {

class EnvScope {
 public:
  EnvScope(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.push_back({name, old != nullptr, old != nullptr ? old : ""});
      if (value != nullptr)
        setenv(name, value, 1);
      else
        unsetenv(name);
    }
  }
  ~EnvScope() {
    for (const auto& v : saved_) {
      if (v.had)
        setenv(v.name, v.value.c_str(), 1);
      else
        unsetenv(v.name);
    }
  }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;

 private:
  struct Saved {
    const char* name;
    bool had;
    std::string value;
  };
  std::vector<Saved> saved_;
};

}  // namespace eigsolve::test_util
