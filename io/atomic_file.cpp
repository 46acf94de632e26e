// Output files: a regular file (or a new path) is written to a temporary in the target's folder
// and renamed into place on success, removed on any failure, so a failed run never leaves a
// partial result. Devices, FIFOs and the standard streams are written directly (a rename over
// /dev/null would replace the device node), symbolic links are followed to their target, and
// folders, block devices and sockets are refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "io/io_detail.hpp"

namespace eigsolve {
namespace io_detail {

namespace {
constexpr std::size_t kBufferBytes = std::size_t(1) << 20;
constexpr int kMaxLinkHops = 40;

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

/// strerror with a lower-case first letter ("no space left on device").
std::string errno_text(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

ssize_t default_write(int fd, const void* p, std::size_t n) {
  return ::write(fd, p, n);
}
int default_close(int fd) {
  return ::close(fd);
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

/// N for "/dev/fd/N", "/proc/self/fd/N", "/proc/thread-self/fd/N" or "/proc/<our pid>/fd/N"
/// (a descriptor of this process, to be written as it is: its offset and append mode kept),
/// else -1.
int own_descriptor(const std::string& p) {
  std::size_t pos = std::string::npos;
  const std::string own = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                                    std::string("/proc/thread-self/fd/"), own}) {
    if (starts_with(p, prefix.c_str())) pos = prefix.size();
  }
  if (pos == std::string::npos || pos >= p.size() || p.size() - pos > 9) return -1;
  int n = 0;
  for (std::size_t k = pos; k < p.size(); ++k) {
    if (p[k] < '0' || p[k] > '9') return -1;
    n = n * 10 + (p[k] - '0');
  }
  return n;
}

std::string folder_of(const std::string& p) {
  std::size_t slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

/// Where the output goes once every symbolic link on the way is followed.
struct Target {
  std::string path;  // final path (no link)
  int own_fd = -1;   // >= 0: a descriptor of this process (see own_descriptor)
  bool exists = false;
  struct stat st {};
};

Target resolve(const std::string& given) {
  Target t;
  std::string p = given;
  for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
    t.path = p;
    t.own_fd = own_descriptor(p);
    if (t.own_fd >= 0) return t;
    if (::lstat(p.c_str(), &t.st) != 0) {
      int err = errno;
      if (err == ENOENT) return t;  // a new file (or a missing folder: reported on create)
      throw OutputError(given, "cannot examine the output path: " + errno_text(err));
    }
    t.exists = true;
    if (!S_ISLNK(t.st.st_mode)) return t;
    std::vector<char> link(static_cast<std::size_t>(t.st.st_size > 0 ? t.st.st_size : 255) + 2);
    ssize_t r = ::readlink(p.c_str(), link.data(), link.size());
    if (r < 0 || static_cast<std::size_t>(r) >= link.size()) {
      throw OutputError(given, "cannot read the symbolic link " + p);
    }
    std::string next(link.data(), static_cast<std::size_t>(r));
    p = (next.empty() || next[0] == '/') ? next : folder_of(p) + "/" + next;
    t.exists = false;
  }
  throw OutputError(given, "too many levels of symbolic links");
}

const char* refused_kind(mode_t m) {
  if (S_ISDIR(m)) return "is a directory; give a file name for the output";
  if (S_ISBLK(m)) return "is a block device; eigsolve does not write to disks directly";
  if (S_ISSOCK(m)) return "is a socket; give a file name for the output";
  if (S_ISREG(m) || S_ISCHR(m) || S_ISFIFO(m)) return nullptr;
  return "is not a file eigsolve can write";
}
}  // namespace

OutputSyscalls& output_syscalls() {
  static OutputSyscalls s{&default_write, &default_close};
  return s;
}

AtomicFile::AtomicFile(const std::string& path)
    : path_(path == "-" ? std::string("standard output") : path) {
  if (path.empty()) throw OutputError("(empty path)", "no output file name given");
  const Target t = path == "-" ? Target{"-", STDOUT_FILENO, false, {}} : resolve(path);
  if (t.own_fd >= 0) {  // a descriptor of ours: write through a duplicate, close that
    fd_ = ::fcntl(t.own_fd, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) {
      int err = errno;
      throw OutputError(path, "cannot write to file descriptor " + std::to_string(t.own_fd) + ": " +
                                  errno_text(err));
    }
    buf_.reserve(kBufferBytes);
    return;
  }
  if (t.exists) {
    if (const char* why = refused_kind(t.st.st_mode)) {
      const std::string via = t.path == path ? std::string() : "(-> " + t.path + ") ";
      throw OutputError(path, via + why);
    }
  }
  if (t.exists && !S_ISREG(t.st.st_mode)) {  // character device or FIFO: write in place
    fd_ = ::open(t.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) {
      int err = errno;
      throw OutputError(path, "cannot open for writing: " + errno_text(err));
    }
    buf_.reserve(kBufferBytes);
    return;
  }
  if (t.exists && ::access(t.path.c_str(), W_OK) != 0) {
    int err = errno;
    throw OutputError(path, "cannot replace the file: " + errno_text(err));
  }
  target_ = t.path;
  std::vector<char> tmpl(target_.begin(), target_.end());
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
  // mkstemp creates 0600: an existing file keeps its permission bits, a new one gets the usual.
  ::fchmod(fd_, t.exists ? (t.st.st_mode & 07777) : (0666 & ~process_umask()));
  buf_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  if (fd_ >= 0) output_syscalls().close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFile::fail(const std::string& what) {
  if (!done_) {
    if (fd_ >= 0) output_syscalls().close(fd_);
    fd_ = -1;
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }
  done_ = true;
  buf_.clear();
  throw OutputError(path_, what);
}

void AtomicFile::write_all(const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t r = output_syscalls().write(fd_, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail("write failed: " + errno_text(errno));
    }
    if (r == 0) fail("write failed: the output accepted no more bytes");
    p += r;
    n -= static_cast<std::size_t>(r);
  }
}

void AtomicFile::flush() {
  write_all(buf_.data(), buf_.size());
  buf_.clear();
}

void AtomicFile::write(const char* p, std::size_t n) {
  if (done_ || finished_) fail("internal error: write after commit");
  if (buf_.size() + n <= kBufferBytes) {
    buf_.append(p, n);
    return;
  }
  flush();
  if (n <= kBufferBytes) {
    buf_.append(p, n);
    return;
  }
  write_all(p, n);  // large block: straight through
}

void AtomicFile::finish() {
  if (done_ || finished_) fail("internal error: commit twice");
  flush();
  int fd = fd_;
  fd_ = -1;
  if (output_syscalls().close(fd) != 0) {
    int err = errno;
    fail("write failed on close: " + errno_text(err));
  }
  finished_ = true;
  if (tmp_.empty()) done_ = true;  // written in place: nothing to rename
}

void AtomicFile::check_target() {
  if (done_) return;
  if (!finished_) fail("internal error: publish before finish");
  // The target may have changed since it was examined: never rename over anything but a
  // regular file.
  struct stat st {};
  if (::lstat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    fail(
        "the output path was replaced by something other than a file while writing; "
        "not overwritten");
  }
}

void AtomicFile::publish() {
  if (done_) return;
  check_target();
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    int err = errno;
    fail("cannot move the finished output into place: " + errno_text(err));
  }
  done_ = true;
}

void AtomicFile::commit() {
  finish();
  publish();
}

bool writes_in_place(const std::string& path) {
  if (path == "-") return true;
  try {
    const Target t = resolve(path);
    return t.own_fd >= 0 || (t.exists && (S_ISCHR(t.st.st_mode) || S_ISFIFO(t.st.st_mode)));
  } catch (const OutputError&) {
    return false;  // the write reports it
  }
}

}  // namespace io_detail

void check_output_path(const std::string& path) {
  using namespace io_detail;
  if (path.empty()) throw OutputError("(empty path)", "no output file name given");
  if (path == "-") return;
  const Target t = resolve(path);
  if (t.own_fd >= 0) return;
  if (t.exists) {
    if (const char* why = refused_kind(t.st.st_mode)) {
      const std::string via = t.path == path ? std::string() : "(-> " + t.path + ") ";
      throw OutputError(path, via + why);
    }
    if (!S_ISREG(t.st.st_mode)) return;  // a device or FIFO: opened when written (not now)
    if (::access(t.path.c_str(), W_OK) != 0) {
      int err = errno;
      throw OutputError(path, "cannot replace the file: " + errno_text(err));
    }
  }
  // The folder must take the temporary the write will create: make one and remove it.
  std::vector<char> tmpl(t.path.begin(), t.path.end());
  const char suffix[] = ".tmp.XXXXXX";
  tmpl.insert(tmpl.end(), suffix, suffix + sizeof suffix);
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    throw OutputError(path, "cannot create a temporary file beside the output (" + errno_text(err) +
                                "); does the folder exist and is it writable?");
  }
  ::close(fd);
  ::unlink(tmpl.data());
}

void write_file_atomic(const std::string& path, const std::string& content) {
  io_detail::AtomicFile f(path);
  f.write(content.data(), content.size());
  f.commit();
}

bool is_stream_output(const std::string& path) {
  return io_detail::writes_in_place(path);
}

OutputSet::OutputSet() = default;
OutputSet::~OutputSet() = default;  // each unpublished AtomicFile removes its temporary

void OutputSet::add(const std::string& path, Writer writer) {
  if (published_) throw OutputError(path, "internal error: an output added after publish");
  if (is_stream_output(path)) {
    streams_.emplace_back(path, std::move(writer));
    return;
  }
  run(path, writer);
}

void OutputSet::run(const std::string& path, const Writer& writer) {
  auto f = std::make_unique<io_detail::AtomicFile>(path);
  writer(*f);
  f->finish();
  if (!f->direct()) staged_.push_back(std::move(f));  // a regular file after all (it changed)
}

void OutputSet::text(const std::string& path, std::string content) {
  add(path, [content = std::move(content)](io_detail::AtomicFile& f) { f.write(content); });
}

void OutputSet::write_streams() {
  std::vector<std::pair<std::string, Writer>> todo;
  todo.swap(streams_);
  for (const auto& s : todo)
    run(s.first, s.second);
}

void OutputSet::publish() {
  if (published_) throw OutputError("(outputs)", "internal error: published twice");
  write_streams();
  published_ = true;
  // Every target is checked before the first rename, so that one replaced meanwhile stops
  // them all; a rename itself failing after that (rare: the folder changed in between) leaves
  // the outputs renamed before it in place.
  for (auto& f : staged_)
    f->check_target();
  for (auto& f : staged_)
    f->publish();
  staged_.clear();
}

}  // namespace eigsolve
