// libFuzzer target: the Matrix Market reader (coordinate and array, every field and symmetry)
// through the public API (probe_matrix_file, read_matrix) on an in-memory file.
//
//   input ──▶ probe ──▶ read_matrix<T> serial ──┬── same outcome and bits ──▶ chunked (2 threads)
//                                                └── differential ──▶ mm_reference.hpp
//
// T is chosen from the input size (float, double, complex<float>, complex<double>, dd_real).
// Findings: crashes, ASan/UBSan reports, exceptions other than InputError/OutOfMemory, a
// message that is not one printable line naming the file, serial and chunked parses that
// differ (the underflow count and the first one's place included), and any disagreement
// with the reference reader (accepted vs rejected, or a different matrix). dd is checked for
// everything but the reference.
#include <omp.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "fuzz_common.hpp"
#include "io/io_detail.hpp"
#include "io/matrix_io.hpp"
#include "mm_reference.hpp"

using namespace eigsolve;

namespace {

constexpr std::uint64_t kMemoryLimit = std::uint64_t(1) << 20;  // n <= 362 in double: fast runs
fuzz::MemFile* g_file = nullptr;

struct Outcome {
  enum Kind { kOk, kInput, kMemory } kind = kOk;
  std::string msg;
  std::vector<unsigned char> bits;
  MatrixFileInfo info;
  std::string text() const { return kind == kOk ? "accepted" : msg; }
};

template <class T>
Outcome read(bool chunked, std::size_t block) {
  io_detail::coordinate_parallel_bytes() = chunked ? 1 : ~std::size_t(0);
  io_detail::array_parallel_bytes() = chunked ? 1 : ~std::size_t(0);
  io_detail::coordinate_block_bytes() = block;
  omp_set_num_threads(chunked ? 2 : 1);
  Outcome o;
  try {
    HostMatrix<T> a = read_matrix<T>(g_file->path(), &o.info);
    const auto* p = reinterpret_cast<const unsigned char*>(a.data.data());
    o.bits.assign(p, p + a.data.size() * sizeof(T));
  } catch (const InputError& e) {
    o.kind = Outcome::kInput;
    o.msg = e.what();
    fuzz::check_message(o.msg, g_file->path());
  } catch (const OutOfMemory& e) {
    o.kind = Outcome::kMemory;
    o.msg = e.what();
    fuzz::check_message(o.msg, "");
  }
  return o;
}

template <class R, bool kComplex>
void compare_with_reference(const std::uint8_t* data, std::size_t size, const Outcome& got) {
  using T = std::conditional_t<kComplex, Complex<R>, R>;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::RefResult<R> ref = fuzz::reference_read<R>(text, kComplex, kMemoryLimit);
  const std::string what = std::string(" (T = ") + (kComplex ? "complex " : "") +
                           (sizeof(R) == 4 ? "float" : "double") + ")";
  if (ref.kind == fuzz::RefResult<R>::kTooBig) {
    if (got.kind == Outcome::kMemory) return;
    if (got.kind == Outcome::kInput && got.msg.find("is too large") != std::string::npos) return;
    fuzz::finding("the matrix exceeds the memory limit, but the reader said: " + got.text() + what);
  }
  if (ref.kind == fuzz::RefResult<R>::kReject) {
    if (got.kind == Outcome::kInput) return;
    fuzz::finding("the reference rejects (" + ref.why + ") but the reader said: " + got.text() +
                  what);
  }
  if (got.kind != Outcome::kOk) fuzz::finding("the reference accepts, the reader: " + got.msg + what);
  std::vector<T> want(ref.a.size());
  for (std::size_t k = 0; k < ref.a.size(); ++k) {
    if constexpr (kComplex) {
      want[k] = Complex<R>(ref.a[k].re, ref.a[k].im);
    } else {
      want[k] = ref.a[k].re;
    }
  }
  if (got.bits.size() != want.size() * sizeof(T) ||
      (!want.empty() && std::memcmp(got.bits.data(), want.data(), got.bits.size()) != 0)) {
    fuzz::finding("accepted, but the matrix differs from the reference" + what);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_file = new fuzz::MemFile();
  io_detail::matrix_memory_limit() = kMemoryLimit;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  g_file->set(data, size);
  // The probe reads only the header; it must never crash, and where it fails the reader fails.
  MatrixFileInfo probed;
  bool probe_ok = true;
  try {
    probed = probe_matrix_file(g_file->path());
  } catch (const InputError& e) {
    probe_ok = false;
    fuzz::check_message(e.what(), g_file->path());
  }
  const bool cplx = probe_ok && probed.is_complex();
  const int pick = static_cast<int>(size % 5);
  const std::size_t block = 24 + size % 173;  // many rounds of small blocks
  Outcome serial, chunked;
  auto both = [&](auto tag) {
    using T = typename decltype(tag)::type;
    serial = read<T>(false, block);
    chunked = read<T>(true, block);
  };
  if (pick == 4 && !cplx) {
    both(TypeTag<dd_real>{});
  } else if (pick % 2 == 0) {
    if (cplx || pick == 2) {
      both(TypeTag<Complex<double>>{});
    } else {
      both(TypeTag<double>{});
    }
  } else {
    if (cplx || pick == 3) {
      both(TypeTag<Complex<float>>{});
    } else {
      both(TypeTag<float>{});
    }
  }
  if (serial.kind != chunked.kind || serial.msg != chunked.msg || serial.bits != chunked.bits)
    fuzz::finding("serial and chunked reads differ: '" + serial.text() + "' vs '" + chunked.text() +
                  "'");
  if (serial.kind == Outcome::kOk && (serial.info.underflows != chunked.info.underflows ||
                                      serial.info.underflow_line != chunked.info.underflow_line ||
                                      serial.info.underflow_row != chunked.info.underflow_row ||
                                      serial.info.underflow_col != chunked.info.underflow_col))
    fuzz::finding("serial and chunked reads count or place the underflows differently");
  if (!probe_ok && serial.kind == Outcome::kOk) fuzz::finding("the probe failed, the reader did not");
  if (probe_ok && serial.kind == Outcome::kOk &&
      (probed.format != serial.info.format || probed.field != serial.info.field ||
       probed.symmetry != serial.info.symmetry || probed.rows != serial.info.rows ||
       probed.entries != serial.info.entries))
    fuzz::finding("the probe's header info differs from the reader's");
  if (pick == 4 && !cplx) return 0;  // dd: no reference
  if (pick == 0 && !cplx) compare_with_reference<double, false>(data, size, serial);
  if (pick == 1 && !cplx) compare_with_reference<float, false>(data, size, serial);
  if (pick == 2 || (pick == 0 && cplx) || (pick == 4 && cplx))
    compare_with_reference<double, true>(data, size, serial);
  if (pick == 3 || (pick == 1 && cplx)) compare_with_reference<float, true>(data, size, serial);
  return 0;
}
