#include "app/output_checks.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "core/errors.hpp"

namespace eigsolve {

bool is_stdout_path(const std::string& p) {
  return p == "-" || p == "/dev/stdout" || p == "/dev/fd/1" || p == "/proc/self/fd/1";
}

void check_distinct_outputs(const std::vector<NamedOutput>& outs, const std::string& stdout_note) {
  auto canonical = [](const std::string& p) {
    std::error_code ec;
    // absolute first: weakly_canonical leaves a relative path whose first part does not
    // exist relative ("w.txt" and "./w.txt" would differ)
    std::filesystem::path c = std::filesystem::weakly_canonical(std::filesystem::absolute(p), ec);
    return ec ? p : c.string();
  };
  for (std::size_t a = 0; a < outs.size(); ++a) {
    for (std::size_t b = a + 1; b < outs.size(); ++b) {
      const std::string both = outs[a].option + " and " + outs[b].option;
      if (is_stdout_path(outs[a].path) || is_stdout_path(outs[b].path)) {
        if (is_stdout_path(outs[a].path) && is_stdout_path(outs[b].path))
          throw UsageError(both + " both write to standard output; give one of them a file name" +
                           stdout_note);
        continue;
      }
      const std::string ca = canonical(outs[a].path);
      if (ca != canonical(outs[b].path)) continue;
      struct stat st {};
      if (::stat(ca.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) continue;
      throw UsageError(both + " name the same file '" + outs[b].path +
                       "'; each output needs its own");
    }
  }
}

}  // namespace eigsolve
