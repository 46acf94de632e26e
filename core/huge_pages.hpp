// Large host buffers on transparent huge pages where the kernel offers them on request
// (/sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's default): a first touch then
// faults 2 MiB at a time instead of 4 KiB. On a virtual machine a 4 KiB fault costs several
// microseconds, so filling a fresh n = 4096 double matrix (134 MB, 33k faults) took ~0.35 s of
// page faults before any byte was read (bench/NOTES.md, session 42). Only the placement of the
// bytes changes, never a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/env_flag.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace eigsolve {

/// Asks for huge pages on the 2 MiB-aligned part of [p, p + bytes) when it holds at least
/// 4 MiB; does nothing elsewhere (smaller buffers, other systems, a kernel that refuses, or
/// EIGSOLVE_HUGE_PAGES=0 in the environment, the switch for measuring the difference).
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  static const bool on = env_flag("EIGSOLVE_HUGE_PAGES", true);
  if (!on || p == nullptr || bytes < 2 * kHuge) return;
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (e > b) (void)::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // advice only
#else
  (void)p, (void)bytes;
#endif
}

/// v := empty with capacity for n elements (no element touched yet), on huge pages where
/// advise_huge_pages grants them: fill it with assign / resize / insert afterwards.
template <class X>
void reserve_huge(std::vector<X>& v, std::size_t n) {
  v.clear();
  v.shrink_to_fit();
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(X));
}

}  // namespace eigsolve
