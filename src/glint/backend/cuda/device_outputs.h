#pragma once
// What the device renderer draws: colour, alpha and every blend output of
// backend/render_outputs.h (expected and median depth, normals, distortion, count) with
// their gradients. AbsGS's statistic (RenderSettings::want_mean2d_abs) has no device
// kernel.
#include <cstdint>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/blend_aovs.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// The first thing `s` asks for that the device renderer does not draw, or null.
inline const char* missing_device_output(const RenderSettings& s) {
  if (s.want_mean2d_abs) return "mean2d_abs (AbsGS's statistic)";
  return nullptr;
}

// The blend kernels' bits (kAovDepth, ...) of the outputs `s` asks for.
inline std::uint32_t device_aov_flags(const RenderSettings& s) {
  std::uint32_t f = 0;
  for (int i = 0; i < aov::kCount; ++i)
    if (wants(s, aov::Id(i))) f |= aov::kernel_flag(aov::Id(i));
  return f;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
