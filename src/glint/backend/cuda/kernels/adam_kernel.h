#pragma once
// Adam on the device: one thread a value of one parameter group, the update of
// train/adam_value.h (the CPU loop's), built without contraction (--fmad=false): with
// sqrtf and the division correctly rounded, the CPU's bits on a device too. Rows hidden by the visibility mask (selective Adam)
// and the columns at or past used_width (SH coefficients above the degree in use) are left
// as they are, as on the CPU. `non_finite` counts the updated values left non-finite.
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/train/adam_value.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct AdamGroupSpans {
  DeviceSpan<float> params;
  DeviceSpan<const float> grads;
  DeviceSpan<float> m, v;
  std::uint32_t width, used_width;
};
static_assert(sizeof(AdamGroupSpans) == 72);

GLINT_KERNEL void adam_kernel(AdamGroupSpans g, AdamConsts c, DeviceSpan<const std::uint8_t> visible,
                              DeviceSpan<std::uint32_t> non_finite) {
  const std::uint64_t j = thread_index();
  if (j >= g.params.size) return;
  const std::uint64_t row = j / g.width;
  const auto col = static_cast<std::uint32_t>(j % g.width);
  if (col >= g.used_width || (visible.size > 0 && visible[row] == 0)) return;
  if (adam_value(g.params[j], g.grads[j], g.m[j], g.v[j], c)) atomicAdd(&non_finite.data[0], 1u);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
