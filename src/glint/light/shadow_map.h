#pragma once
// Shadow maps of a splat scene, rendered by the rasterizer from each light (light_views.h)
// and looked up with PCF, a slope-scaled bias and a normal offset.
//
// Depth definition: the rasterizer's median depth (where transmittance first falls below
// 0.5), the same definition the camera views use. The alternative, alpha-normalised
// expected depth, averages the occluder and what lies behind it at occluder silhouettes,
// which moves shadow edges; both can be chosen for comparison.
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/core/image.h"
#include "glint/light/light_map.h"
#include "glint/light/light_views.h"
#include "glint/light/lights.h"
#include "glint/light/surface_interpolation.h"

namespace glint {

enum class ShadowDepth { Median, Expected };

struct ShadowMapParams : LightMapParams {
  ShadowDepth depth = ShadowDepth::Median;
  // Measured on the relight benchmark with plane-fit shading normals (docs/LIGHTING.md):
  // normals that close to the surface need little offset; 256 and 320 texels score the
  // same mean there, 384 keeps the point light's shadows sharper.
  ShadowMapParams() {
    resolution = 384;
    normal_offset = 0.5;
  }
};

struct ShadowMap {
  LightViews views;
  std::vector<ImageF> depth;  // per face, [R,R,1] z-depth of the first surface; 0 = nothing
  ShadowMapParams params;
};

ShadowMap render_shadow_map(Backend& backend, const GaussianModel& model, const Light& light,
                            const SceneBounds& bounds, const ShadowMapParams& params = {});
// One map per light, every face rendered in one batch (Backend::forward_views).
std::vector<ShadowMap> render_shadow_maps(Backend& backend, const GaussianModel& model, const std::vector<Light>& lights,
                                          const SceneBounds& bounds, const ShadowMapParams& params = {});
// The same with parameters per light (params[l] for lights[l]).
std::vector<ShadowMap> render_shadow_maps(Backend& backend, const GaussianModel& model, const std::vector<Light>& lights,
                                          const SceneBounds& bounds, const std::vector<ShadowMapParams>& params);

// Fraction of PCF taps that see the light from world point x with unit normal n (zero
// normal: no offset, no slope bias). Points outside every face are lit.
double shadow_visibility(const ShadowMap& map, const Light& light, Vec3d x, Vec3d n);
// out[i] = shadow_visibility(map, light, x[i], n[i]) for i < count, the same values; a
// sun's lookups four at a time on vector lanes.
void shadow_visibility_batch(const ShadowMap& map, const Light& light, const Vec3d* x, const Vec3d* n, int count,
                             double* out);

// Per pixel of a view: [H,W,1] visibility from world positions and normals ([H,W,3]); 1
// where the normal is zero (no surface).
ImageF shadow_visibility_image(const ShadowMap& map, const Light& light, const ImageF& positions,
                               const ImageF& normals);
// The same over a plan's pixels, interpolated where it allows (light/surface_interpolation.h),
// and not looked up where the surface faces away from the light (n . l <= 0: the light
// gives it no irradiance, whatever the visibility); those pixels hold 1, as pixels without
// a surface do.
ImageF shadow_visibility_image(const ShadowMap& map, const Light& light, const SurfaceInterpolationPlan& plan,
                               int width, int height);

}  // namespace glint
