#pragma once
// The per-splat ambient occlusion the page de-lights with (light/splat_occlusion.h),
// baked once per model with the maps glint relight uses (64 directions, 256 texels, PCF 3),
// in the page's map depth (alpha-normalised expected depth, `--shadow-depth expected`).
//
//   bytes 0..3  "GLAO"
//   u32         version (1)
//   u32         splat count N (the model blob's)
//   f32         ao[N*2]: 2i with the splat's normal along +axis, 2i+1 along -axis
#include <string>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/light/ambient_occlusion.h"

namespace glint::view {

inline constexpr std::uint32_t kSplatAoBlobVersion = 1;

AoParams page_ao_params();
AoMaps render_page_ao_maps(Backend& backend, const GaussianModel& model);
std::string encode_splat_ao_blob(const AoMaps& maps, const GaussianModel& model);

}  // namespace glint::view
