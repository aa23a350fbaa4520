#pragma once
// Per-splat bookkeeping of a training step on the device, one thread a splat (or a value):
// which splats the render drew, ADC's densification statistics (train/densify.cpp's
// accumulate_densify_stats, the same formulas) and the finiteness check. Counts are integer
// atomics, which give the same total in any order.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// visible[i] = 1 where the render drew splat i (radius > 0); count[0] += the drawn splats.
GLINT_KERNEL void visibility_kernel(DeviceSpan<const std::int32_t> radii, DeviceSpan<std::uint8_t> visible,
                                    DeviceSpan<std::uint32_t> count) {
  const std::uint64_t i = thread_index();
  if (i >= radii.size) return;
  const bool drawn = radii[i] > 0;
  visible[i] = drawn ? 1 : 0;
  if (drawn) atomicAdd(&count.data[0], 1u);
}

struct DensifyStatsSpans {
  DeviceSpan<float> grad_accum, grad_count, max_radii;
};
static_assert(sizeof(DensifyStatsSpans) == 48);

// For every drawn splat: the norm of its view-space positional gradient (mean2d, pixels,
// scaled by half the image size as 3DGS's NDC gradient is), a count and the largest radius.
GLINT_KERNEL void densify_stats_kernel(DeviceSpan<const float> mean2d, DeviceSpan<const std::int32_t> radii, float sx,
                                       float sy, DensifyStatsSpans s) {
  const std::uint64_t i = thread_index();
  if (i >= radii.size) return;
  const float r = static_cast<float>(radii[i]);
  if (!(r > 0.f)) return;
  const float gx = mean2d[row_element(i, 2, 0)] * sx, gy = mean2d[row_element(i, 2, 1)] * sy;
  s.grad_accum[i] += sqrtf(gx * gx + gy * gy);
  s.grad_count[i] += 1.f;
  s.max_radii[i] = fmaxf(s.max_radii[i], r);
}

// count[0] += the values that are inf or NaN (an all-ones exponent).
GLINT_KERNEL void non_finite_kernel(DeviceSpan<const float> values, DeviceSpan<std::uint32_t> count) {
  const std::uint64_t j = thread_index();
  if (j >= values.size) return;
  std::uint32_t u;
  std::memcpy(&u, &values.data[j], sizeof(u));
  if ((u & 0x7f800000u) == 0x7f800000u) atomicAdd(&count.data[0], 1u);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
