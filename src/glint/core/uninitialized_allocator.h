#pragma once
// An allocator for large float buffers that are written in full before anything reads them
// (images, a rasterizer's per-pixel state):
// - new elements are left uninitialised (default-initialised) when a vector grows without
//   a value. Clearing a large buffer on growth is one serial pass over fresh memory, which
//   first touches every page on one thread while the others wait; left alone, the pages
//   are touched by whichever threads write them.
// - a buffer of at least one 2 MiB page goes on transparent huge pages
//   (core/huge_pages.h), whatever the program's operator new does.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "glint/core/huge_pages.h"

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

  // Whether a buffer of `bytes` goes on huge pages: the same answer in allocate and
  // deallocate, which a vector calls with the same count.
  static constexpr bool on_huge_pages(std::size_t bytes) { return bytes >= kHugePage; }

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (n > std::size_t(-1) / sizeof(T) || !on_huge_pages(bytes)) return std::allocator<T>::allocate(n);
    void* p = allocate_on_huge_pages(bytes);
    if (!p) throw std::bad_alloc();
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
