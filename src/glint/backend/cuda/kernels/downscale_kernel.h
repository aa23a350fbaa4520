#pragma once
// Coarse-to-fine's area downscale of an 8-bit image on the device, one thread an output
// value: io/image_ops.cpp's resize_area, the same spans and weights (computed per pixel
// with the same double arithmetic) and the same float sums in the same order (down the
// source column over the vertical span, then across the horizontal span), rounded half
// away from zero and clamped to 8 bits.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/core/hd.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct AreaResize {
  std::int32_t src_width, src_height, channels, width, height;
};
static_assert(sizeof(AreaResize) == 20);

// Output pixel o's source span along an axis of `src` pixels shrunk to `dst`.
struct AreaSpan {
  double a, b, scale;
  int first, last;
};
GLINT_HD inline AreaSpan area_span(int src, int dst, int o) {
  AreaSpan s;
  s.scale = static_cast<double>(src) / dst;
  s.a = o * s.scale;
  s.b = (o + 1) * s.scale;
  s.first = static_cast<int>(std::floor(s.a));
  const int last = static_cast<int>(std::ceil(s.b)) - 1;
  s.last = src - 1 < last ? src - 1 : last;
  return s;
}
GLINT_HD inline float area_weight(const AreaSpan& s, int i) {
  const double hi = s.b < i + 1.0 ? s.b : i + 1.0;
  const double lo = s.a < static_cast<double>(i) ? static_cast<double>(i) : s.a;
  const double w = hi - lo;
  return static_cast<float>((0.0 < w ? w : 0.0) / s.scale);  // std::max(0.0, w)
}

GLINT_KERNEL void area_downscale_kernel(DeviceSpan<const std::uint8_t> src, AreaResize r, DeviceSpan<std::uint8_t> out) {
  const std::uint64_t j = thread_index();
  if (j >= out.size) return;
  const int c = r.channels;
  const int ch = static_cast<int>(j % static_cast<std::uint32_t>(c));
  const int px = static_cast<int>(j / static_cast<std::uint32_t>(c));  // pixels <= kMaxPixels
  const int ox = px % r.width, oy = px / r.width;
  const AreaSpan sx = area_span(r.src_width, r.width, ox), sy = area_span(r.src_height, r.height, oy);
  const std::size_t stride = static_cast<std::size_t>(r.src_width) * static_cast<std::size_t>(c);
  float acc = 0.f;
  for (int x = sx.first; x <= sx.last; ++x) {
    float column = 0.f;
    for (int y = sy.first; y <= sy.last; ++y)
      column += area_weight(sy, y) * src[static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x * c + ch)];
    acc += area_weight(sx, x) * column;
  }
  const float v = std::round(acc);
  out[j] = static_cast<std::uint8_t>(v < 0.f ? 0.f : (v > 255.f ? 255.f : v));
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
