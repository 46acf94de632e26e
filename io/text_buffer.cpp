// Whole-file buffers and the whitespace table of the tokenizer.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "core/huge_pages.hpp"
#include "io/io_detail.hpp"

namespace eigsolve {
namespace io_detail {

namespace {
constexpr std::size_t kParallelReadBytes = std::size_t(64) << 20;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void cannot_read(const std::string& path, int err) {
  throw InputError(path, 0, std::string("cannot read the file: ") + std::strerror(err));
}

// Reads up to `want` bytes (or to EOF when want == SIZE_MAX) into a growing buffer.
void read_all(const std::string& path, int fd, std::size_t want, std::unique_ptr<char[]>& data,
              std::size_t& size, bool& eof) {
  struct stat st {};
  std::size_t cap = 1 << 16;
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) cannot_read(path, EISDIR);
    if (S_ISREG(st.st_mode)) cap = static_cast<std::size_t>(st.st_size) + 1;
  }
  cap = std::min(cap, want) + 1;  // room for the sentinel
  try {
    data.reset(new char[cap]);
    advise_huge_pages(data.get(), cap);  // the read's first touch: 2 MiB faults where granted
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("reading " + path, cap);
  }
  size = 0;
  eof = false;
  if (S_ISREG(st.st_mode) && want == static_cast<std::size_t>(-1) - 2 &&
      cap - 1 >= kParallelReadBytes) {
    // Large regular file: positional reads of disjoint blocks in parallel (the page-cache
    // copy is a sizeable part of the reading time), then the usual loop checks for EOF.
    const std::size_t total = cap - 2;
    const std::size_t block = std::size_t(32) << 20;
    const std::int64_t nblocks = static_cast<std::int64_t>((total + block - 1) / block);
    std::vector<int> errs(static_cast<std::size_t>(nblocks), 0);
    std::vector<std::size_t> got(static_cast<std::size_t>(nblocks), 0);
    char* base = data.get();
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < nblocks; ++b) {
      const std::size_t off = static_cast<std::size_t>(b) * block;
      const std::size_t len = std::min(block, total - off);
      std::size_t done = 0;
      while (done < len) {
        ssize_t r = ::pread(fd, base + off + done, len - done, static_cast<off_t>(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
          errs[static_cast<std::size_t>(b)] = errno;
          break;
        }
        if (r == 0) break;
        done += static_cast<std::size_t>(r);
      }
      got[static_cast<std::size_t>(b)] = done;
    }
    for (std::int64_t b = 0; b < nblocks; ++b) {
      if (errs[static_cast<std::size_t>(b)] != 0)
        cannot_read(path, errs[static_cast<std::size_t>(b)]);
      size += got[static_cast<std::size_t>(b)];
      if (got[static_cast<std::size_t>(b)] <
          std::min(block, total - static_cast<std::size_t>(b) * block))
        break;
    }
    if (::lseek(fd, static_cast<off_t>(size), SEEK_SET) < 0) cannot_read(path, errno);
  }
  while (size < want) {
    if (size + 1 >= cap) {  // grow (non-regular files, or a file that grew)
      std::size_t ncap = std::min(want + 1, cap * 2);
      if (ncap <= cap) break;
      std::unique_ptr<char[]> n;
      try {
        n.reset(new char[ncap]);
      } catch (const std::bad_alloc&) {
        throw OutOfMemory("reading " + path, ncap);
      }
      std::memcpy(n.get(), data.get(), size);
      data.swap(n);
      cap = ncap;
    }
    std::size_t chunk = std::min<std::size_t>(cap - 1 - size, std::size_t(1) << 30);
    chunk = std::min(chunk, want - size);
    ssize_t r = ::read(fd, data.get() + size, chunk);
    if (r < 0) {
      if (errno == EINTR) continue;
      cannot_read(path, errno);
    }
    if (r == 0) {
      eof = true;
      break;
    }
    size += static_cast<std::size_t>(r);
  }
  data[size] = '\n';
}
}  // namespace

// , \t, \v, \f, \r (not \n): the separators inside a line.
const bool kHSpace[256] = {false, false, false, false, false, false, false, false, false,
                           true,  false, true,  true,  true,  false, false, false, false,
                           false, false, false, false, false, false, false, false, false,
                           false, false, false, false, false, true};

namespace {

// Pipes and FIFOs (`eigsolve <(zcat m.mtx.gz)`, `... | eigsolve -`) cannot be read twice, yet
// the CLI probes a file's header before it reads the file: the stream stays open here with
// the bytes read so far, for the loads of the same path that follow. One stream at a time; a
// whole-file load takes the bytes and closes it. Prefix loads read only as far as they need,
// so a stream of garbage is still rejected after its first bytes.
struct Stream {
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
  int fd = -1;
  std::string bytes;
  bool eof = false;
};

Stream& open_stream() {
  static Stream s;
  return s;
}

void close_stream(Stream& s) {
  if (s.fd >= 0) ::close(s.fd);
  s = Stream();
}

TextBuffer load_stream(const std::string& path, const struct stat& st, std::size_t max_bytes,
                       bool* complete) {
  Stream& s = open_stream();
  if (s.fd < 0 || s.path != path || s.dev != st.st_dev || s.ino != st.st_ino) {
    close_stream(s);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      throw InputError(path, 0, std::string("cannot open the file: ") + std::strerror(err));
    }
    s.path = path;
    s.dev = st.st_dev;
    s.ino = st.st_ino;
    s.fd = fd;
  }
  const bool whole = max_bytes >= static_cast<std::size_t>(-1) - 2;
  std::vector<char> chunk(std::size_t(1) << 16);
  // Up to one byte beyond max_bytes: it tells whether the prefix is the whole stream.
  while (!s.eof && (whole || s.bytes.size() <= max_bytes)) {
    ssize_t r = ::read(s.fd, chunk.data(), chunk.size());
    if (r < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close_stream(s);
      cannot_read(path, err);
    }
    if (r == 0) {
      s.eof = true;
      break;
    }
    try {
      s.bytes.append(chunk.data(), static_cast<std::size_t>(r));
    } catch (const std::bad_alloc&) {
      const std::size_t want = s.bytes.size() + static_cast<std::size_t>(r);
      close_stream(s);
      throw OutOfMemory("reading " + path, want);
    }
  }
  if (complete) *complete = s.eof && s.bytes.size() <= max_bytes;
  TextBuffer b = TextBuffer::from_text(
      path, std::string_view(s.bytes).substr(0, std::min(max_bytes, s.bytes.size())));
  if (whole) close_stream(s);
  return b;
}

}  // namespace

TextBuffer TextBuffer::load(const std::string& path) {
  bool complete = false;
  TextBuffer b = load_prefix(path, static_cast<std::size_t>(-1) - 2, &complete);
  return b;
}

TextBuffer TextBuffer::load_prefix(const std::string& path, std::size_t max_bytes, bool* complete) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode))
    return load_stream(path, st, max_bytes, complete);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    throw InputError(path, 0, std::string("cannot open the file: ") + std::strerror(err));
  }
  Fd guard(fd);
  TextBuffer b;
  b.path_ = path;
  bool eof = false;
  read_all(path, fd, max_bytes, b.data_, b.size_, eof);
  if (complete) {
    if (!eof && b.size_ < max_bytes) eof = true;
    if (!eof) {  // exactly max_bytes read: look one byte further
      char c;
      ssize_t r = ::read(fd, &c, 1);
      eof = (r == 0);
    }
    *complete = eof;
  }
  return b;
}

TextBuffer TextBuffer::from_text(const std::string& name, std::string_view text) {
  TextBuffer b;
  b.path_ = name;
  try {
    b.data_.reset(new char[text.size() + 1]);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory("reading " + name, text.size() + 1);
  }
  std::memcpy(b.data_.get(), text.data(), text.size());
  b.data_[text.size()] = '\n';  // the sentinel
  b.size_ = text.size();
  return b;
}

std::int64_t TextBuffer::line_of(const char* p) const {
  const char* b = begin();
  if (p > content_end()) p = content_end();
  return 1 + static_cast<std::int64_t>(std::count(b, p, '\n'));
}

std::int64_t TextBuffer::last_content_line() const {
  const char* p = content_end();
  while (p > begin() && (is_hspace(p[-1]) || p[-1] == '\n'))
    --p;
  if (p == begin()) return 1;
  return line_of(p - 1);
}

std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 40;
  const bool cut = s.size() > kMax;
  std::string r = "'";
  for (char c : cut ? s.substr(0, kMax) : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      r += c;
    } else {  // control bytes and non-ASCII: the message stays one printable line
      static const char kHex[] = "0123456789abcdef";
      r += "\\x";
      r += kHex[u >> 4];
      r += kHex[u & 15];
    }
  }
  return r + (cut ? "...'" : "'");
}

}  // namespace io_detail
}  // namespace eigsolve
