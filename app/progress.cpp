#include "app/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace eigsolve {

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled && isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressBar::~ProgressBar() {
  clear();
}

void ProgressBar::update(const char* stage, double fraction) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || std::chrono::duration<double>(now - last_).count() < 0.1) return;
  last_ = now;
  if (fraction < 0) fraction = 0;
  if (fraction > 1) fraction = 1;
  const int width = 30;
  int filled = static_cast<int>(fraction * width + 0.5);
  std::string bar(filled, '#');
  bar += std::string(width - filled, '.');
  std::fprintf(stderr, "\r%-18s [%s] %3d%%  %6.1f s", stage, bar.c_str(),
               static_cast<int>(fraction * 100), elapsed);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%70s\r", "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace eigsolve
