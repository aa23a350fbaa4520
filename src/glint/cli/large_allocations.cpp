// The glint program's operator new: an allocation of at least one 2 MiB page goes on
// transparent huge pages (core/huge_pages.h), the rest to malloc. Most of a command's large
// buffers are std::vectors of its own and of the standard library (the model's arrays, a
// file read whole, the rasterizer's per-splat and per-tile scratch), which no allocator
// parameter reaches; on a machine where page faults are slow, their first touches were a
// good part of a one-view relight.
// Every block, either kind, is released with std::free. Not under AddressSanitizer, whose
// own operator new and delete must pair with each other.
#include <cstdlib>
#include <new>

#include "glint/core/huge_pages.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLINT_SANITIZED_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GLINT_SANITIZED_NEW 1
#endif

#if !defined(GLINT_SANITIZED_NEW)
namespace {
void* take(std::size_t n) noexcept {
  return n >= glint::kHugePage ? glint::allocate_on_huge_pages(n) : std::malloc(n == 0 ? 1 : n);
}
void* take_or_throw(std::size_t n) {
  void* p = take(n);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return take_or_throw(n); }
void* operator new[](std::size_t n) { return take_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return take(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return take(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#endif
