#pragma once
// Ambient occlusion of surface points, AO(x) = (1/pi) integral of V cos over the hemisphere
// around n, estimated from K sun-like (emulated orthographic) median-depth shadow maps in
// directions spread evenly over the sphere (a Fibonacci lattice):
//   AO(x, n) ~ sum_k V_k(x) max(0, n.d_k) / sum_k max(0, n.d_k).
// The whole sphere, not only the upper hemisphere, because a wall standing on a ground
// plane is occluded from below by that ground; its downward directions count.
// De-lighting: a capture under a white uniform world is albedo * AO, so dividing the
// capture by the (clamped) AO recovers the albedo.
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/core/image.h"
#include "glint/light/shadow_map.h"
#include "glint/light/surface_interpolation.h"

namespace glint {

struct EnvLighting;

struct AoParams {
  int directions = 64;
  int resolution = 128;
  int pcf_kernel = 5;  // partial visibility at silhouettes instead of a flip of a whole direction
  // Texels. The normal offset moves the lookup towards occluders above the surface, a
  // bias that does not average out over directions, so it is kept small. The depth biases
  // are what the estimate is sensitive to: too large, and the grazing directions of a
  // wall's foot miss the ground they meet (AO too high where it is low, the albedo too
  // dark); too small, and a surface occludes itself (docs/LIGHTING.md measures both).
  double constant_bias = 2.0, slope_bias = 3.0, normal_offset = 0.5;
  ShadowDepth depth = ShadowDepth::Median;  // what a map texel holds (shadow_map.h)
  bool hemisphere_only = false;  // only directions with d.up >= 0
  Vec3d up{0, 0, 1};
};

struct AoMaps {
  std::vector<Light> directions;  // suns of strength 1, one per direction
  std::vector<ShadowMap> maps;
};

// `directions` evenly spread unit vectors (Fibonacci sphere, deterministic); with
// hemisphere_only, the ones with d.up >= 0 of a lattice twice as dense.
std::vector<Vec3d> fibonacci_directions(int count, bool hemisphere_only = false, Vec3d up = {0, 0, 1});

AoMaps render_ao_maps(Backend& backend, const GaussianModel& model, const SceneBounds& bounds,
                      const AoParams& params = {});
double ambient_occlusion(const AoMaps& maps, Vec3d x, Vec3d n);
// [H,W,1]; 1 where the normal is zero (no surface).
ImageF ambient_occlusion_image(const AoMaps& maps, const ImageF& positions, const ImageF& normals);

// The AO image and, from the same lookups, the residual irradiance with visibility of each
// environment in `residuals` (environment_light.h; built on these maps' directions):
// [H,W,3] each, as env_residual_irradiance_image gives them.
struct AoAndResiduals {
  ImageF ao;
  std::vector<ImageF> residual_irradiance;
};
AoAndResiduals ambient_occlusion_and_residuals(const AoMaps& maps, const std::vector<const EnvLighting*>& residuals,
                                               const ImageF& positions, const ImageF& normals);
// The same over a plan's pixels, interpolated where it allows (light/surface_interpolation.h;
// the AO absolute, the residuals relative).
AoAndResiduals ambient_occlusion_and_residuals(const AoMaps& maps, const std::vector<const EnvLighting*>& residuals,
                                               const SurfaceInterpolationPlan& plan, int width, int height);

// albedo = capture_linear / max(AO, min_ao), clamped to [0,1] (a capture's colour cannot
// come from an albedo above 1). Alpha channels (2 or 4 channels) are copied.
ImageF delight(const ImageF& capture_linear, const ImageF& ao, float min_ao = 0.2f);

}  // namespace glint
