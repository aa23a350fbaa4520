#pragma once
// The blend's optional outputs (the blend rows of backend/render_outputs.h) as the device
// kernels take them, and the per-pixel state the forward keeps of them for the backward.
// An output is drawn when its bit is in `flags`; the spans of an output not drawn are
// empty and never read.
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/render_outputs.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// The outputs' bits, the CPU tile kernels' (aov::kernel_flag), as constants the device
// code can read.
inline constexpr std::uint32_t kAovDepth = aov::kernel_flag(aov::depth);
inline constexpr std::uint32_t kAovMedian = aov::kernel_flag(aov::median_depth);
inline constexpr std::uint32_t kAovNormal = aov::kernel_flag(aov::normal);
inline constexpr std::uint32_t kAovDistortion = aov::kernel_flag(aov::distortion);
inline constexpr std::uint32_t kAovCount = aov::kernel_flag(aov::count);
// The outputs whose gradient reaches a splat's depth (a record's dz) or normal.
inline constexpr std::uint32_t kAovGeometry = kAovDepth | kAovMedian | kAovNormal | kAovDistortion;

inline constexpr std::uint32_t kNoMedian = 0xffffffffu;

struct BlendAovs {
  std::uint32_t flags = 0;
  std::uint32_t stop_at_median = 0;  // RenderSettings::median_depth_only: a pixel ends at its median
  // outputs, [H*W] each but normal [H*W*3]
  DeviceSpan<float> depth, median, normal, distortion, count;
  // kept for the backward: sum w z (depth's numerator), the sorted instance of the median
  // step (kNoMedian: none), and for the distortion sum w (z - z0) and z0, the depth of the
  // pixel's first blended splat (the CPU kernels' reference depth, render/blend.h)
  DeviceSpan<float> depth_sum;
  DeviceSpan<std::uint32_t> median_at;
  DeviceSpan<float> dist_r, dist_z0;
};
static_assert(sizeof(BlendAovs) == 8 + 9 * 16);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
