// Atomic output: a temporary file in the target's folder, renamed into place on success and
// removed on any failure, so a failed run never leaves a partial result.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/io_detail.hpp"

namespace eigsolve {
namespace io_detail {

namespace {
constexpr std::size_t kBufferBytes = std::size_t(1) << 20;

mode_t process_umask() {
  // Read once (umask can only be read by setting it); the first call races with nothing in
  // practice because outputs are written after the solve.
  static const mode_t m = [] {
    mode_t old = ::umask(022);
    ::umask(old);
    return old;
  }();
  return m;
}

std::string errno_text(int err) {
  return std::strerror(err);
}
}  // namespace

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  if (path.empty()) throw OutputError("(empty path)", "no output file name given");
  if (path == "-") {
    to_stdout_ = true;
    fd_ = STDOUT_FILENO;
    buf_.reserve(kBufferBytes);
    return;
  }
  std::vector<char> tmpl(path.begin(), path.end());
  const char suffix[] = ".tmp.XXXXXX";
  tmpl.insert(tmpl.end(), suffix, suffix + sizeof suffix);  // includes the '\0'
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    throw OutputError(path, "cannot create a temporary file beside the output (" + errno_text(err) +
                                "); does the folder exist and is it writable?");
  }
  fd_ = fd;
  tmp_.assign(tmpl.data());
  ::fchmod(fd_, 0666 & ~process_umask());  // mkstemp creates 0600; use the usual mode
  buf_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (done_ || to_stdout_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const std::string& what) {
  if (!to_stdout_ && !done_) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(tmp_.c_str());
  }
  done_ = true;
  throw OutputError(path_, what);
}

void AtomicFile::flush() {
  const char* p = buf_.data();
  std::size_t left = buf_.size();
  while (left > 0) {
    ssize_t r = ::write(fd_, p, left);
    if (r < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      buf_.clear();
      fail("write failed: " + errno_text(err));
    }
    p += r;
    left -= static_cast<std::size_t>(r);
  }
  buf_.clear();
}

void AtomicFile::write(const char* p, std::size_t n) {
  if (done_) fail("internal error: write after commit");
  if (buf_.size() + n <= kBufferBytes) {
    buf_.append(p, n);
    return;
  }
  flush();
  if (n <= kBufferBytes) {
    buf_.append(p, n);
    return;
  }
  while (n > 0) {  // large block: write straight through
    ssize_t r = ::write(fd_, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail("write failed: " + errno_text(errno));
    }
    p += r;
    n -= static_cast<std::size_t>(r);
  }
}

void AtomicFile::commit() {
  if (done_) fail("internal error: commit twice");
  flush();
  if (to_stdout_) {
    done_ = true;
    return;
  }
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp_.c_str());
    done_ = true;
    throw OutputError(path_, "write failed on close: " + errno_text(err));
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp_.c_str());
    done_ = true;
    throw OutputError(path_, "cannot move the finished output into place: " + errno_text(err));
  }
  done_ = true;
}

}  // namespace io_detail

void write_file_atomic(const std::string& path, const std::string& content) {
  io_detail::AtomicFile f(path);
  f.write(content.data(), content.size());
  f.commit();
}

}  // namespace eigsolve
