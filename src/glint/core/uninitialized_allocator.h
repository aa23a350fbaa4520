#pragma once
// An allocator for large float buffers that are written in full before anything reads them
// (images, a rasterizer's per-pixel state):
// - new elements are left uninitialised (default-initialised) when a vector grows without
//   a value. Clearing a large buffer on growth is one serial pass over fresh memory, which
//   first touches every page on one thread while the others wait; left alone, the pages
//   are touched by whichever threads write them.
// - a buffer of at least one 2 MiB page that rounds up to whole pages with little waste
//   (an eighth at most) is placed on page boundaries and advised as transparent huge
//   pages (Linux; a hint the kernel ignores where they are off): its first touch is then
//   one page fault per 2 MiB instead of 512, which matters where faults are slow, as in
//   virtual machines.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace glint {

template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}

  static constexpr std::size_t kHugePage = std::size_t(2) << 20;
  static constexpr std::size_t whole_pages(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
  // Whether a buffer of `bytes` goes on huge pages: the same answer in allocate and
  // deallocate, which a vector calls with the same count.
  static constexpr bool on_huge_pages(std::size_t bytes) {
    return bytes >= kHugePage && whole_pages(bytes) - bytes <= bytes / 8;
  }

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (n > std::size_t(-1) / sizeof(T) || !on_huge_pages(bytes)) return std::allocator<T>::allocate(n);
    void* p = std::aligned_alloc(kHugePage, whole_pages(bytes));
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, whole_pages(bytes), MADV_HUGEPAGE);  // a hint: failure changes nothing
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {  // n: what allocate was given, so in range
    if (!on_huge_pages(n * sizeof(T))) return std::allocator<T>::deallocate(p, n);
    std::free(p);
  }

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using UninitializedVector = std::vector<T, UninitializedAllocator<T>>;

}  // namespace glint
