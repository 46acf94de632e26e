// Checks shared by the commands that write several outputs (solve, generate).
#pragma once

#include <string>
#include <vector>

namespace eigsolve {

/// An output of a command: the option that names it ("-o") and its path ("-" = stdout).
struct NamedOutput {
  std::string option;
  std::string path;
};

/// Whether `path` is standard output: "-", /dev/stdout, /dev/fd/1, /proc/self/fd/1.
bool is_stdout_path(const std::string& path);

/// Two outputs on one file would keep only the one written last, two on standard output would
/// interleave: both are UsageErrors, found before anything is read or written. Paths are
/// compared made absolute with their links followed; two outputs on the same character device
/// or FIFO (e.g. /dev/null) are fine. `stdout_note` ends the standard-output message (e.g.
/// " (-o is standard output when not given)").
void check_distinct_outputs(const std::vector<NamedOutput>& outs, const std::string& stdout_note);

}  // namespace eigsolve
