#pragma once
// Environment lights as the page shades them, split by glint view with the relighter's own
// machinery (light/environment_light.h) once at load: the suns (ordinary sun lights the
// page gives shadow maps), the residual's irradiance table E_res(n), and the residual's
// visibility factor baked per splat from the AO maps (as the per-splat AO):
//   factor_c = sum_k V_k w_kc max(0, n.d_k) / sum_k w_kc max(0, n.d_k)   (1 where the sum is 0)
// at the splat's centre, for both signs of its normal.
//
// Visibility blob: "GLEV", u32 version (1), u32 N, f32 [N*8]: per splat (r, g, b, 0) along
// +axis, then (r, g, b, 0) along -axis.
#include <string>

#include "glint/core/gaussians.h"
#include "glint/light/ambient_occlusion.h"
#include "glint/light/environment_light.h"

namespace glint::view {

// The page's JSON object for environment light `light` split into `env`; `visibility_url`
// is where its visibility blob is served. "file" is the map's absolute path, so that a
// light file the page saves reads the same map wherever it is saved.
std::string environment_light_json(const Light& light, const EnvLighting& env, const std::string& visibility_url);

std::string encode_env_visibility_blob(const AoMaps& maps, const EnvLighting& env, const GaussianModel& model);

}  // namespace glint::view
