#include "glint/light/shadow_map.h"

#include <algorithm>
#include <cmath>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"

namespace glint {

std::vector<ShadowMap> render_shadow_maps(Backend& backend, const GaussianModel& model, const std::vector<Light>& lights,
                                          const SceneBounds& bounds, const ShadowMapParams& p) {
  std::vector<ShadowMap> maps(lights.size());
  std::vector<Camera> faces;
  for (std::size_t l = 0; l < lights.size(); ++l) {
    maps[l].params = p;
    maps[l].views = make_light_map_views(lights[l], bounds, p, "shadow map");
    faces.insert(faces.end(), maps[l].views.faces.begin(), maps[l].views.faces.end());
  }
  RenderSettings s;
  s.for_backward = false;  // rendered, never differentiated
  s.sh_degree = 0;         // only coverage and depth are read: no view-dependent colour to evaluate
  s.want_alpha = p.depth == ShadowDepth::Expected;
  s.want_depth = p.depth == ShadowDepth::Expected;
  s.want_median_depth = p.depth == ShadowDepth::Median;
  s.median_depth_only = s.want_median_depth;
  std::vector<RenderOutput> outs;
  backend.forward_views(model, faces, s, outs);
  std::size_t next = 0;
  for (ShadowMap& m : maps)
    for (std::size_t f = 0; f < m.views.faces.size(); ++f) {
      RenderOutput& out = outs[next++];
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
  return maps;
}

ShadowMap render_shadow_map(Backend& backend, const GaussianModel& model, const Light& light,
                            const SceneBounds& bounds, const ShadowMapParams& p) {
  return std::move(render_shadow_maps(backend, model, {light}, bounds, p).front());
}

namespace {

// shadow_lookup for a map of one face (spot, sun and the AO maps, most of a relight's
// lookups), with the same arithmetic in the same order but without its repeated
// transforms: a single face needs no second face test after the normal offset.
ShadowLookup single_face_lookup(const LightViews& views, const Light& light, Vec3d x, Vec3d n,
                                const LightMapParams& p) {
  ShadowLookup r;
  const Camera& c = views.faces[0];
  const Vec3d pc0 = c.world_to_camera(x);
  if (!(pc0.z > 0)) return r;
  const Vec2d uv0 = c.project(pc0);
  const double g = views.guard_px;
  if (uv0.x < g || uv0.y < g || uv0.x > c.width - g || uv0.y > c.height - g) return r;
  r.face = 0;
  const double texel = pc0.z / c.fx;
  double tan_t = 0;
  Vec3d pc = pc0;
  if (dot(n, n) > 0) {
    const double cs = std::clamp(dot(n, direction_to_light(light, x)), 1e-3, 1.0);
    tan_t = std::min(10.0, std::sqrt(1 - cs * cs) / cs);
    pc = c.world_to_camera(x + (p.normal_offset * texel) * n);
  }
  const Vec2d uv = c.project(pc);
  r.u = uv.x;
  r.v = uv.y;
  r.z = pc.z - (p.constant_bias + p.slope_bias * tan_t) * texel;
  return r;
}

}  // namespace

double shadow_visibility(const ShadowMap& m, const Light& light, Vec3d x, Vec3d n) {
  const ShadowLookup L = m.views.faces.size() == 1 ? single_face_lookup(m.views, light, x, n, m.params)
                                                   : shadow_lookup(m.views, light, x, n, m.params);
  if (L.face < 0) return 1;
  const ImageF& d = m.depth[L.face];
  return pcf_mean(d.width, d.height, L.u, L.v, m.params.pcf_kernel, [&](int tx, int ty) {
    const float occ = d.at(tx, ty, 0);
    return (!(occ > 0) || L.z <= occ) ? 1.0 : 0.0;
  });
}

ImageF shadow_visibility_image(const ShadowMap& m, const Light& light, const ImageF& pos, const ImageF& nrm) {
  return map_surface_pixels(pos, nrm, "shadow visibility",
                            [&](Vec3d x, Vec3d n) { return shadow_visibility(m, light, x, n); });
}

}  // namespace glint
