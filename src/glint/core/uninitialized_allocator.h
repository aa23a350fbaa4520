#pragma once
// An allocator whose vectors leave new elements uninitialised (default-initialised) when
// they grow without a value: for buffers that are written in full before anything reads
// them. Clearing a large buffer on growth is one serial pass over fresh memory, which first
// touches every page on one thread while the others wait; left alone, the pages are
// touched by whichever threads write them.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

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
