#pragma once
// Masks in the loss on the device (train/loss.h): a view's 8-bit mask as per-pixel loss
// weights, and images multiplied by them, one thread a value, with the CPU's formulas
// (backend/target_view.cpp's mask_weights, train/loss.cpp's apply_weights), so the
// weighted values are the CPU's bits. The loss kernels (loss_kernels.h,
// ssim_tile_kernels.h) read the same weights: any backend that fills a weight plane this
// way gets masks in its loss.
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// weight[p] = mask[p] / 255.
GLINT_KERNEL void mask_weight_kernel(DeviceSpan<const std::uint8_t> mask, DeviceSpan<float> weight) {
  const std::uint64_t p = thread_index();
  if (p >= weight.size) return;
  weight[p] = static_cast<float>(mask[p]) * (1.f / 255.f);
}

// out[i] = values[i] * weight[i / channels] (out may be values: each thread reads and writes
// its own value only).
GLINT_KERNEL void apply_weights_kernel(DeviceSpan<const float> values, DeviceSpan<const float> weight,
                                       std::int32_t channels, DeviceSpan<float> out) {
  const std::uint64_t i = thread_index();
  if (i >= out.size) return;
  out[i] = values[i] * weight[i / static_cast<std::uint64_t>(channels)];
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
