#pragma once
// A training target on the device: the view's 8-bit image (1 to 4 channels, as decoded)
// composited over the step's background into [H,W,3] floats, one thread a pixel, with
// the formulas of composite_float_into (io/image_ops.cpp). The images stay 8-bit in device
// memory, a quarter of their float size.
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct TargetImage {
  std::int32_t width, height, channels;  // channels of the 8-bit source
  float background[3];
};
static_assert(sizeof(TargetImage) == 24 && offsetof(TargetImage, background) == 12);

GLINT_KERNEL void target_kernel(DeviceSpan<const std::uint8_t> src, TargetImage t, DeviceSpan<float> out) {
  const std::uint64_t p = thread_index();
  if (p >= out.size / 3) return;
  const int ch = t.channels;
  const std::uint8_t* px = src.data + static_cast<std::size_t>(p) * static_cast<std::size_t>(ch);
  float* o = out.data + 3 * static_cast<std::size_t>(p);
  if (ch == 3) {  // opaque: the values as they are
    for (int c = 0; c < 3; ++c) o[c] = px[c] * (1.f / 255.f);
    return;
  }
  const bool alpha = ch == 4 || ch == 2, grey = ch <= 2;
  const float a = alpha ? px[ch - 1] * (1.f / 255.f) : 1.f, na = 1.f - a;
  for (int c = 0; c < 3; ++c) o[c] = px[grey ? 0 : c] * (1.f / 255.f) * a + t.background[c] * na;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
