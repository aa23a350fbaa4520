#include "glint/light/shadow_map.h"

#include <algorithm>
#include <cmath>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"

namespace glint {

ShadowMap render_shadow_map(Backend& backend, const GaussianModel& model, const Light& light,
                            const SceneBounds& bounds, const ShadowMapParams& p) {
  ShadowMap m;
  m.params = p;
  m.views = make_light_map_views(light, bounds, p, "shadow map");
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

double shadow_visibility(const ShadowMap& m, const Light& light, Vec3d x, Vec3d n) {
  const ShadowLookup L = shadow_lookup(m.views, light, x, n, m.params);
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
