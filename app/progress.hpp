// A progress bar on stderr, drawn only when stderr is a terminal and the work is long.
#pragma once

#include <chrono>
#include <string>

namespace eigsolve {

class ProgressBar {
 public:
  /// enabled: the caller's wish (not --quiet); the bar also needs stderr to be a terminal.
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  /// Reports `fraction` in [0, 1] of `stage`; draws at most ~10 times a second and only after
  /// the run has taken more than a second.
  void update(const char* stage, double fraction);
  /// Erases the bar (before the summary is printed).
  void clear();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace eigsolve
