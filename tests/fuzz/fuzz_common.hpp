// Shared by the libFuzzer targets: the input as a file (a memfd, reached through
// /proc/self/fd/N, so the readers run exactly as on disk without touching the disk), checks on
// error messages, and a loud abort for a finding (libFuzzer saves the input as a crash).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace fuzz {

/// A finding that is not a crash by itself (a wrong acceptance, a different matrix...).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\n*** FUZZ FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// The error messages are one printable line (InputError: "PATH: ..." or "PATH:LINE: ...").
inline void check_message(const std::string& msg, const std::string& path) {
  for (char c : msg) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) finding("control byte " + std::to_string(u) + " in message: " + msg);
  }
  if (!path.empty() && msg.compare(0, path.size(), path) != 0)
    finding("message does not start with the file name: " + msg);
}

/// One anonymous in-memory file, rewritten for every input.
class MemFile {
 public:
  MemFile() {
    fd_ = ::memfd_create("fuzz_input", 0);
    if (fd_ < 0) std::abort();
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  void set(const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(fd_, 0) != 0) std::abort();
    std::size_t done = 0;
    while (done < size) {
      ssize_t r = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (r <= 0) std::abort();
      done += static_cast<std::size_t>(r);
    }
  }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

/// Bitwise equality of two arrays of trivially copyable values.
template <class T>
bool same_bits(const T* a, const T* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

}  // namespace fuzz
