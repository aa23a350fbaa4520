#include "glint/light/transmittance_shadow.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "glint/core/error.h"
#include "glint/light/surface_map.h"
#include "glint/light/shadow_map.h"

namespace glint {

GaussianModel subset_model(const GaussianModel& m, const std::vector<std::size_t>& keep) {
  GaussianModel s;
  s.sh_degree = m.sh_degree;
  s.resize(keep.size());
  for (std::size_t j = 0; j < keep.size(); ++j) {
    const std::size_t i = keep[j];
    std::copy_n(m.means.begin() + 3 * i, 3, s.means.begin() + 3 * j);
    std::copy_n(m.log_scales.begin() + 3 * i, 3, s.log_scales.begin() + 3 * j);
    std::copy_n(m.quats.begin() + 4 * i, 4, s.quats.begin() + 4 * j);
    s.opacity_logits[j] = m.opacity_logits[i];
    std::copy_n(m.sh_dc.begin() + 3 * i, 3, s.sh_dc.begin() + 3 * j);
    std::copy_n(m.sh_rest.begin() + kShRestCoeffs * 3 * i, kShRestCoeffs * 3, s.sh_rest.begin() + kShRestCoeffs * 3 * j);
  }
  return s;
}

TransmittanceMap render_transmittance_map(Backend& backend, const GaussianModel& model, const Light& light,
                                          const SceneBounds& bounds, const TransmittanceParams& p) {
  if (p.planes < 1) throw Error("transmittance map: planes must be >= 1");
  TransmittanceMap tm;
  tm.params = p;
  tm.views = make_light_map_views(light, bounds, p, "transmittance map");
  RenderSettings s;
  s.for_backward = false;  // rendered, never differentiated
  s.sh_degree = 0;         // only coverage and depth are read: no view-dependent colour to evaluate
  s.want_alpha = true;
  const std::size_t nall = model.size();
  std::vector<double> z(nall);
  for (const Camera& cam : tm.views.faces) {
    // Planes are placed by the splats whose centre this face sees: a cube face would
    // otherwise spend its planes on the splats of the other five faces.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < nall; ++i) {
      const Vec3d pc = cam.world_to_camera(Vec3d{model.means[3 * i], model.means[3 * i + 1], model.means[3 * i + 2]});
      z[i] = pc.z;
      if (!(pc.z > 0)) continue;
      const Vec2d uv = cam.project(pc);
      if (uv.x >= 0 && uv.y >= 0 && uv.x <= cam.width && uv.y <= cam.height) order.push_back(i);
    }
    const std::size_t n = order.size();
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return z[a] < z[b]; });
    // Planes at quantiles of the splat order. A quantile inside a group of splats at one
    // depth (a sheet facing the light) brackets the group with a plane before and after
    // it, so the receiver's own sheet is never merged with what lies in front of it.
    TransmittanceMap::Face face;
    std::vector<std::size_t> counts;  // prefix sizes, ascending
    for (int k = 1; k <= p.planes && n > 0; ++k) {
      const std::size_t idx = std::min(n - 1, (n * k + p.planes - 1) / p.planes - 1);
      std::size_t g0 = idx, g1 = idx + 1;
      while (g0 > 0 && z[order[g0 - 1]] == z[order[idx]]) --g0;
      while (g1 < n && z[order[g1]] == z[order[idx]]) ++g1;
      if (g0 > 0) counts.push_back(g0);
      counts.push_back(g1);
    }
    std::sort(counts.begin(), counts.end());
    counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
    for (std::size_t count : counts) {
      const double zk = count < n ? 0.5 * (z[order[count - 1]] + z[order[count]])
                                  : z[order[n - 1]] + 1e-3 * bounds.radius + 1e-6;
      // Every splat in front of the plane, seen by the face or not (footprints cross the
      // border): the exact prefix of the rasterizer's depth order.
      std::vector<std::size_t> keep;
      for (std::size_t i = 0; i < nall; ++i)
        if (z[i] < zk) keep.push_back(i);
      RenderOutput out = backend.forward(subset_model(model, keep), cam, s);
      ImageF T = std::move(out.alpha);
      for (float& a : T.data) a = 1.f - a;
      face.plane_z.push_back(static_cast<float>(zk));
      face.T.push_back(std::move(T));
    }
    tm.faces.push_back(std::move(face));
  }
  return tm;
}

double transmittance_visibility(const TransmittanceMap& m, const Light& light, Vec3d x, Vec3d n) {
  const TransmittanceParams& p = m.params;
  const ShadowLookup L = shadow_lookup(m.views, light, x, n, p);
  if (L.face < 0) return 1;
  const auto& f = m.faces[L.face];
  // Last plane in front of the point; none: nothing in front, fully lit.
  const auto it = std::upper_bound(f.plane_z.begin(), f.plane_z.end(), static_cast<float>(L.z));
  if (it == f.plane_z.begin()) return 1;
  const ImageF& T = f.T[static_cast<std::size_t>(it - f.plane_z.begin()) - 1];
  return pcf_mean(T.width, T.height, L.u, L.v, p.pcf_kernel, [&](int tx, int ty) { return double(T.at(tx, ty, 0)); });
}

ImageF transmittance_visibility_image(const TransmittanceMap& m, const Light& light, const ImageF& pos,
                                      const ImageF& nrm) {
  return map_surface_pixels(pos, nrm, "transmittance visibility",
                            [&](Vec3d x, Vec3d n) { return transmittance_visibility(m, light, x, n); });
}

ImageF transmittance_visibility_image(const TransmittanceMap& m, const Light& light,
                                      const SurfaceInterpolationPlan& plan, int width, int height) {
  ImageF out(width, height, 1, 1.f);
  plan.run({{&out, false}}, [&](long i, Vec3d x, Vec3d n) {
    out.data[static_cast<std::size_t>(i)] = static_cast<float>(transmittance_visibility(m, light, x, n));
  });
  return out;
}

}  // namespace glint
