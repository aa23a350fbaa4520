#pragma once
// What a kernel gets for a buffer: its element type and its length, never a bare pointer
// and a separate count. 3-vectors live in flat float spans, read and written with
// load3/store3 (core/math.h) at element index i (floats 3i..3i+2), so nothing assumes a
// 16-byte float3.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/core/hd.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

template <class T>
struct DeviceSpan {
  T* data = nullptr;
  std::uint64_t size = 0;  // elements: buffers of 2^32 and more values are real (indexing.h)

  GLINT_HD T& operator[](std::uint64_t i) const { return data[i]; }
  // The read-only view a kernel that only reads takes (its parameter is DeviceSpan<const T>).
  DeviceSpan<const T> as_const() const { return {data, size}; }
};

static_assert(sizeof(DeviceSpan<float>) == 16 && alignof(DeviceSpan<float>) == 8);
static_assert(std::is_trivially_copyable_v<DeviceSpan<float>>);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
