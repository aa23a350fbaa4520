#include "glint/light/ambient_occlusion.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"
#include "glint/light/color.h"

namespace glint {

std::vector<Vec3d> fibonacci_directions(int count, bool hemi, Vec3d up) {
  if (count < 1) throw Error("AO: direction count must be >= 1");
  up = normalize(up);
  // Frame with `up` as the lattice's z axis.
  const Vec3d a = std::abs(up.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  const Vec3d ex = normalize(cross(a, up)), ey = cross(up, ex);
  const int n = hemi ? 2 * count : count;
  const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
  std::vector<Vec3d> out;
  for (int i = 0; i < n && static_cast<int>(out.size()) < count; ++i) {
    const double z = 1 - (2 * i + 1.0) / n;  // from the top down: the upper half comes first
    if (hemi && z < 0) break;
    const double r = std::sqrt(std::max(0.0, 1 - z * z)), phi = golden * i;
    out.push_back(r * std::cos(phi) * ex + r * std::sin(phi) * ey + z * up);
  }
  return out;
}

AoMaps render_ao_maps(Backend& backend, const GaussianModel& model, const SceneBounds& bounds, const AoParams& p) {
  AoMaps ao;
  ShadowMapParams sp;
  sp.resolution = p.resolution;
  sp.pcf_kernel = p.pcf_kernel;
  sp.constant_bias = p.constant_bias;
  sp.slope_bias = p.slope_bias;
  sp.normal_offset = p.normal_offset;
  sp.depth = p.depth;
  for (const Vec3d& d : fibonacci_directions(p.directions, p.hemisphere_only, p.up)) {
    ao.directions.push_back(Light::sun(d, 1));
    ao.maps.push_back(render_shadow_map(backend, model, ao.directions.back(), bounds, sp));
  }
  return ao;
}

double ambient_occlusion(const AoMaps& m, Vec3d x, Vec3d n) {
  double sv = 0, sw = 0;
  for (std::size_t k = 0; k < m.maps.size(); ++k) {
    const double w = dot(n, m.directions[k].direction);
    if (w <= 0) continue;
    sw += w;
    sv += w * shadow_visibility(m.maps[k], m.directions[k], x, n);
  }
  return sw > 0 ? sv / sw : 1.0;
}

ImageF ambient_occlusion_image(const AoMaps& m, const ImageF& pos, const ImageF& nrm) {
  return map_surface_pixels(pos, nrm, "AO",
                            [&](Vec3d x, Vec3d n) { return ambient_occlusion(m, x, n); });
}

ImageF delight(const ImageF& cap, const ImageF& ao, float min_ao) {
  if (ao.channels != 1 || ao.width != cap.width || ao.height != cap.height)
    throw Error("delight: AO must be [H,W,1] of the capture's size");
  ImageF out = cap;
  const int cc = colour_channels(cap.channels);
  const long n = static_cast<long>(cap.width) * cap.height;
  for (long i = 0; i < n; ++i) {
    const float a = std::max(ao.data[i], min_ao);
    for (int c = 0; c < cc; ++c)
      out.data[i * cap.channels + c] = std::clamp(cap.data[i * cap.channels + c] / a, 0.f, 1.f);
  }
  return out;
}

}  // namespace glint
