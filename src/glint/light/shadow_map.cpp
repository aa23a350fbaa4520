#include "glint/light/shadow_map.h"

#include <algorithm>
#include <cmath>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"

namespace glint {

ShadowMap render_shadow_map(Backend& backend, const GaussianModel& model, const Light& light,
                            const SceneBounds& bounds, const ShadowMapParams& p) {
  if (p.pcf_kernel < 1 || p.pcf_kernel % 2 == 0) throw Error("shadow map: PCF kernel must be odd and >= 1");
  ShadowMap m;
  m.params = p;
  // Guard band: PCF radius plus the normal offset and a texel of rounding.
  const int guard = p.pcf_kernel / 2 + static_cast<int>(std::ceil(p.normal_offset)) + 2;
  m.views = make_light_views(light, bounds, p.resolution, guard, p.sun_distance_factor);
  RenderSettings s;
  s.for_backward = false;  // rendered, never differentiated
  s.want_alpha = p.depth == ShadowDepth::Expected;
  s.want_depth = p.depth == ShadowDepth::Expected;
  s.want_median_depth = p.depth == ShadowDepth::Median;
  for (const Camera& cam : m.views.faces) {
    RenderOutput out = backend.forward(model, cam, s);
    if (p.depth == ShadowDepth::Median) {
      m.depth.push_back(std::move(out.median_depth));
    } else {
      // Expected depth where the splats are mostly opaque; below half coverage the light
      // passes, consistent with the median definition's threshold.
      for (std::size_t i = 0; i < out.depth.data.size(); ++i)
        if (!(out.alpha.data[i] >= 0.5f)) out.depth.data[i] = 0;
      m.depth.push_back(std::move(out.depth));
    }
  }
  return m;
}

ShadowLookup shadow_lookup(const LightViews& views, const Light& light, Vec3d x, Vec3d n, double cb, double sb,
                           double no) {
  ShadowLookup r;
  r.face = views.face_of(x);
  if (r.face < 0) return r;
  const Camera& cam = views.faces[r.face];
  const double z0 = cam.world_to_camera(x).z;
  const double texel = z0 / cam.fx;  // world size of a texel at the point
  double tan_t = 0;
  const bool has_n = dot(n, n) > 0;
  if (has_n) {
    const double c = std::clamp(dot(n, direction_to_light(light, x)), 1e-3, 1.0);
    tan_t = std::min(10.0, std::sqrt(1 - c * c) / c);
    x = x + (no * texel) * n;
    // The offset point may have crossed into a neighbouring cube face.
    const int f2 = views.face_of(x);
    if (f2 >= 0) r.face = f2;
  }
  const Camera& c2 = views.faces[r.face];
  const Vec3d pc = c2.world_to_camera(x);
  const Vec2d uv = c2.project(pc);
  r.u = uv.x;
  r.v = uv.y;
  r.z = pc.z - (cb + sb * tan_t) * texel;
  return r;
}

double shadow_visibility(const ShadowMap& m, const Light& light, Vec3d x, Vec3d n) {
  const ShadowLookup L = shadow_lookup(m.views, light, x, n, m.params.constant_bias, m.params.slope_bias,
                                       m.params.normal_offset);
  if (L.face < 0) return 1;
  const ImageF& d = m.depth[L.face];
  const int r = m.params.pcf_kernel / 2;
  const int cx = static_cast<int>(std::floor(L.u)), cy = static_cast<int>(std::floor(L.v));
  int lit = 0, taps = 0;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const int tx = std::clamp(cx + dx, 0, d.width - 1), ty = std::clamp(cy + dy, 0, d.height - 1);
      const float occ = d.at(tx, ty, 0);
      lit += !(occ > 0) || L.z <= occ;
      ++taps;
    }
  return static_cast<double>(lit) / taps;
}

ImageF shadow_visibility_image(const ShadowMap& m, const Light& light, const ImageF& pos, const ImageF& nrm) {
  return map_surface_pixels(pos, nrm, "shadow visibility",
                            [&](Vec3d x, Vec3d n) { return shadow_visibility(m, light, x, n); });
}

}  // namespace glint
