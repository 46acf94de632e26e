// read_matrix and probe_matrix_file: choose the format by content (.npy magic, else
// Matrix Market) and instantiate for every scalar.
#include <cstring>

#include "io/io_detail.hpp"

namespace eigsolve {

namespace {
/// Compressed files are not read: they are rejected with what they are and how to unpack them.
void reject_compressed(const std::string& path, const char* b, std::size_t size) {
  struct Magic {
    const char* bytes;
    std::size_t len;
    const char* name;
    const char* unpack;
  };
  static const Magic kMagic[] = {
      {"\x1f\x8b", 2, "gzip", "gunzip -k FILE (or: zcat FILE > FILE.mtx)"},
      {"BZh", 3, "bzip2", "bunzip2 -k FILE"},
      {"\xfd"
       "7zXZ",
       5, "xz", "unxz -k FILE"},
      {"\x28\xb5\x2f\xfd", 4, "zstd", "unzstd FILE"},
      {"PK\x03\x04", 4, "zip", "unzip FILE"},
  };
  for (const Magic& m : kMagic) {
    if (size >= m.len && std::memcmp(b, m.bytes, m.len) == 0) {
      throw InputError(path, 0,
                       std::string("the file is ") + m.name +
                           "-compressed; eigsolve reads uncompressed Matrix "
                           "Market or .npy files only: " +
                           m.unpack);
    }
  }
}

bool file_has_npy_magic(const std::string& path) {
  bool complete = false;
  io_detail::TextBuffer head = io_detail::TextBuffer::load_prefix(path, 6, &complete);
  reject_compressed(path, head.begin(), head.size());
  return io_detail::has_npy_magic(head.begin(), head.size());
}
}  // namespace

MatrixFileInfo probe_matrix_file(const std::string& path) {
  if (file_has_npy_magic(path)) return io_detail::probe_npy(path);
  return io_detail::probe_matrix_market(path);
}

template <class T>
HostMatrix<T> read_matrix(const std::string& path, MatrixFileInfo* info) {
  io_detail::TextBuffer buf = io_detail::TextBuffer::load(path);
  reject_compressed(path, buf.begin(), buf.size());
  if (io_detail::has_npy_magic(buf.begin(), buf.size())) {
    return io_detail::read_npy<T>(buf, info);
  }
  return io_detail::read_matrix_market<T>(buf, info);
}

#define EIGSOLVE_IO_INST(T) \
  template HostMatrix<T> read_matrix<T>(const std::string&, MatrixFileInfo*);
EIGSOLVE_FOR_EACH_SCALAR(EIGSOLVE_IO_INST)
#undef EIGSOLVE_IO_INST

}  // namespace eigsolve
