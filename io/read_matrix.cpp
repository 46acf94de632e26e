// read_matrix and probe_matrix_file: choose the format by content (.npy magic, else
// Matrix Market) and instantiate for every scalar.
#include "io/io_detail.hpp"

namespace eigsolve {

namespace {
bool file_has_npy_magic(const std::string& path) {
  bool complete = false;
  io_detail::TextBuffer head = io_detail::TextBuffer::load_prefix(path, 6, &complete);
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
