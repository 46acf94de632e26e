// Matrix Market header (banner + size line), shared by the probe and the readers. Internal.
#pragma once

#include <cstdint>

#include "io/io_detail.hpp"

namespace eigsolve {
namespace io_detail {

struct MMHeader {
  MatrixFileInfo info;           ///< format/field/symmetry lower-cased
  std::int64_t banner_line = 0;  ///< 1-based
  std::int64_t size_line = 0;
  const char* body = nullptr;  ///< first byte after the size line
};

/// Thrown by parse_mm_header on a prefix buffer that ends inside the header.
struct NeedMoreHeader {};

/// Parses and validates the banner and the size line (rejections: missing/bad banner,
/// skew-symmetric, bad or non-square size line). complete = false: buf is a prefix of the
/// file and NeedMoreHeader is thrown when the header runs past it.
MMHeader parse_mm_header(const TextBuffer& buf, bool complete);

}  // namespace io_detail
}  // namespace eigsolve
