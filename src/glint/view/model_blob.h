#pragma once
// The model as the viewer page reads it: one little-endian binary blob, float32 arrays in
// the model's own SoA order so that the page evaluates exactly what render/ evaluates.
//
//   bytes 0..3   "GLVW"
//   u32          version (2)
//   u32          splat count N
//   u32          SH degree D (0..3)
//   u32          flags: bit 0 = antialiased (GaussianModel::antialiased: render with the
//                Mip-Splatting 2D filter), the other bits 0
//   f32 means[N*3], log_scales[N*3], quats[N*4] (w x y z), opacity_logits[N], sh_dc[N*3],
//   f32 sh_rest[N*R*3] with R = (D+1)^2 - 1, index (i*R + k)*3 + channel
#include <cstdint>
#include <string>

#include "glint/core/gaussians.h"

namespace glint::view {

inline constexpr std::uint32_t kModelBlobVersion = 2;
inline constexpr std::uint32_t kModelBlobAntialiased = 1;

std::string encode_model_blob(const GaussianModel& m);

}  // namespace glint::view
