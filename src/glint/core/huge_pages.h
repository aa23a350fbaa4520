#pragma once
// Large buffers on transparent huge pages (Linux; a hint the kernel ignores where they are
// off): a buffer's first touch is then one page fault per 2 MiB instead of 512, which
// matters where faults are slow, as in virtual machines, and where a command's memory is
// mostly touched once (one relit view, one render).
// A buffer of at least one page starts on a page boundary and is advised whole, rounded up
// to whole pages, where that commits at most an eighth more than it asked; otherwise only
// its whole pages are, and its tail stays on ordinary pages (so that 2.1 MiB does not
// commit 4).
#include <cstddef>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace glint {

inline constexpr std::size_t kHugePage = std::size_t(2) << 20;

// How many bytes of a buffer of `bytes` are advised as huge pages (0 under one page).
constexpr std::size_t huge_page_span(std::size_t bytes) {
  if (bytes < kHugePage) return 0;
  const std::size_t floor = bytes / kHugePage * kHugePage;
  if (bytes > std::size_t(-1) - kHugePage) return floor;
  const std::size_t whole = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  return whole - bytes <= bytes / 8 ? whole : floor;
}

// At least `bytes` (>= kHugePage) from a page boundary, huge_page_span(bytes) of them
// advised; nullptr when out of memory. Released with std::free.
inline void* allocate_on_huge_pages(std::size_t bytes) {
  const std::size_t span = huge_page_span(bytes);
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, span > bytes ? span : bytes) != 0) return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  ::madvise(p, span, MADV_HUGEPAGE);  // a hint: failure changes nothing
#endif
  return p;
}

}  // namespace glint
