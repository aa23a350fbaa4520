#pragma once
// Shading with an environment map and visibility from the splats:
//   E_c(x, n) = integral env_c(w) V(x, w) max(0, n.w) dw,   L_c = albedo_c E_c / pi.
// The map is split in two parts that are shaded differently:
//  * suns: up to `max_suns` clusters of the brightest texels (luminance above
//    `bright_ratio` times the map's mean, within `cluster_radius_deg` of the cluster's
//    brightest texel). Each becomes an ordinary sun light (light/lights.h) whose direction
//    and per-channel strength come from the cluster's first moment integral(env w dw), so it
//    gets its own shadow or transmittance map and its irradiance max(0, n.M) is exact for
//    every normal the cluster lies above. One bright texel is exactly one sun.
//  * the residual (everything else): its unoccluded irradiance E_res(n) is tabulated
//    exactly per normal; its visibility is the ambient-occlusion estimator weighted by the
//    residual's radiance around each AO direction d_k (its Voronoi cell on the sphere):
//      E(x, n) = E_res(n) * sum_k V_k(x) w_k max(0, n.d_k) / sum_k w_k max(0, n.d_k),
//    w_k the mean residual radiance of cell k. A uniform map gives w_k all equal, so the
//    factor is exactly the AO of light/ambient_occlusion.h, and E = pi * radiance * AO.
#include <memory>
#include <vector>

#include "glint/core/image.h"
#include "glint/light/ambient_occlusion.h"
#include "glint/light/environment_map.h"
#include "glint/light/lights.h"

namespace glint {

struct EnvLightParams {
  int max_suns = 16;
  double bright_ratio = 4;          // sun candidates: texel luminance > ratio * mean luminance
  double cluster_radius_deg = 8;    // texels this close to a cluster's peak join that sun
  int table_width = 64;             // residual irradiance table: width x (width/2 + 1) normals
  // Shadow (or transmittance) map side of a sun split from the map. A sun stands for
  // texels up to cluster_radius_deg around it, so its shadow edges are soft at that angle:
  // finer maps than the lamps' resolve detail the light does not have.
  int sun_shadow_resolution = 256;
  // What a texel of a sun's shadow map holds (light/shadow_map.h).
  ShadowDepth sun_shadow_depth = ShadowDepth::Median;
};

// Unoccluded irradiance per normal on a lat-long grid (azimuth 2pi i/W, elevation
// -pi/2 + pi j/(H-1), poles included), bilinear between nodes.
struct IrradianceTable {
  int width = 0, height = 0;
  std::vector<Vec3d> E;  // [height][width]
  Vec3d lookup(Vec3d n) const;
};

struct EnvLighting {
  std::vector<Light> suns;               // world frame, strength * colour from the moments
  std::vector<Vec3d> residual_directions;  // the AO directions the residual is weighted on
  std::vector<Vec3d> residual_weights;     // mean residual radiance of each direction's cell
  IrradianceTable residual;                // E_res(n), strength included
  // E_res(n) times a weighted visibility per channel (ResidualSums::visibility): the one
  // product every way of shading the residual ends in.
  Vec3d residual_irradiance(Vec3d n, Vec3f visibility) const {
    const Vec3d E = residual.lookup(n);
    return {E.x * visibility.x, E.y * visibility.y, E.z * visibility.z};
  }
};

// `residual_directions`: the directions of the AO maps that will give the residual's
// visibility (AoMaps::directions), or any set when it is shaded without shadows.
EnvLighting decompose_environment(const EnvironmentMap& env, const std::vector<Vec3d>& residual_directions,
                                  const EnvLightParams& params = {});

// Exact integral over the sphere of env(w) max(0, n.w) dw, strength included, skipping the
// texels whose `skip` entry (row-major, may be null) is non-zero. Texels straddling n's
// horizon are integrated over 4 x 4 sub-cells. The reference the table is built from.
Vec3d env_irradiance_exact(const EnvironmentMap& env, Vec3d n, const std::vector<char>* skip = nullptr);

// The residual's visibility-weighted sums over the AO directions, gathered direction by
// direction: by env_residual_irradiance, or alongside the ambient occlusion of the same
// point (ambient_occlusion.h), so that each direction's visibility is looked up once.
struct ResidualSums {
  Vec3d num{0, 0, 0}, den{0, 0, 0};
  // The weight of AO direction k with c = n.d_k > 0; zero: the direction adds nothing (and
  // needs no visibility lookup).
  static Vec3d weight(const EnvLighting& env, std::size_t k, double c) { return c * env.residual_weights[k]; }
  static bool is_zero(Vec3d w) { return w.x == 0 && w.y == 0 && w.z == 0; }
  // A direction of non-zero weight w and visibility v.
  void add(Vec3d w, double v) {
    num = num + v * w;
    den = den + w;
  }
  // The weighted visibility per channel, num / den, as a float (1 where no direction
  // carried weight): what an interpolated residual holds between pixels, since it varies
  // with the occluders alone while E_res varies with the normal too.
  Vec3f visibility() const;
  // E_res(n) times the weighted visibility as visibility() gives it.
  Vec3d irradiance(const EnvLighting& env, Vec3d n) const;
};

// Residual irradiance with visibility at a surface point (ao null: unoccluded).
Vec3d env_residual_irradiance(const EnvLighting& env, const AoMaps* ao, Vec3d x, Vec3d n);
// [H,W,3]; zero where the normal is zero.
ImageF env_residual_irradiance_image(const EnvLighting& env, const AoMaps* ao, const ImageF& positions,
                                     const ImageF& normals);

// An environment light as shaded: its decomposition, tinted by the light's colour.
EnvLighting tinted_environment(const Light& environment_light, const std::vector<Vec3d>& residual_directions,
                               const EnvLightParams& params);

// The setup with every environment light replaced by its suns; the residuals are appended
// to `residuals` (one per environment light, in order).
LightSetup expand_environment_lights(const LightSetup& setup, const std::vector<Vec3d>& residual_directions,
                                     const EnvLightParams& params, std::vector<EnvLighting>& residuals);

}  // namespace glint
