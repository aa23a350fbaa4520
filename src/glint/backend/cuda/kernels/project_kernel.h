#pragma once
// The project stage: one thread per splat projects it with render/project.h and counts the
// 16x16 tiles its cut ellipse reaches with render/tile.h, as the CPU backend does. Built
// with contraction (--fmad=true): a contracted product can move a ceil, so a few splats'
// radii and tile counts may differ from the CPU's (tests/device_tolerances.h). Compiled
// by nvcc (backend/cuda/*.cu) and by the host compiler against the emulator (the tests).
#include <cmath>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/projected_splat.h"
#include "glint/backend/cuda/splat_geometry.h"
#include "glint/core/math.h"
#include "glint/render/project.h"
#include "glint/render/sh.h"
#include "glint/render/tile.h"
#include "glint/render/view.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// Calls f(tile index) for every 16x16 tile, in row-major order, whose pixel centres the
// splat's cut ellipse can reach (the test the CPU backend's tile lists use).
template <class F>
GLINT_HD inline void for_each_hit_tile(const ProjectedSplat& s, int width, int height, F&& f) {
  const render::PixelRect pr = render::splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
  if (pr.x0 > pr.x1 || pr.y0 > pr.y1) return;
  const int TS = render::kTileSize, tiles_x = (width + TS - 1) / TS;
  const render::RectTestPrep prep = render::rect_test_prep(s.conic[0], s.conic[1], s.conic[2], s.power_cut);
  for (int ty = pr.y0 / TS; ty <= pr.y1 / TS; ++ty) {
    float py0 = 0.f, py1 = 0.f;
    render::tile_centre_span(ty, pr.y0, pr.y1, py0, py1);
    for (int tx = pr.x0 / TS; tx <= pr.x1 / TS; ++tx) {
      float px0 = 0.f, px1 = 0.f;
      render::tile_centre_span(tx, pr.x0, pr.x1, px0, px1);
      if (render::ellipse_hits_rect(prep, s.mx, s.my, px0, px1, py0, py1)) f(static_cast<std::uint32_t>(ty * tiles_x + tx));
    }
  }
}

GLINT_HD inline std::uint32_t count_hit_tiles(const ProjectedSplat& s, int width, int height) {
  std::uint32_t hits = 0;
  for_each_hit_tile(s, width, height, [&](std::uint32_t) { ++hits; });
  return hits;
}

GLINT_KERNEL void project_kernel(render::ViewT<float> view, SplatGeometry g, std::int32_t sh_degree,
                                 std::uint32_t antialiased, DeviceSpan<ProjectedSplat> out) {
  const std::uint64_t i = thread_index();
  if (i >= out.size) return;
  render::Projected<float> p;
  const Vec3f mean = load3(g.means.data, i);
  const bool keep = render::project_splat(view, mean, load3(g.log_scales.data, i), load_quat(g.quats.data, i),
                                          g.opacity_logits[i], antialiased != 0, p);
  ProjectedSplat s{p.mx, p.my, {p.conic[0], p.conic[1], p.conic[2]}, p.depth, p.opacity, p.power_cut,
                   p.ext_x, p.ext_y, 0u, 0, {0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}};
  if (keep) {
    s.tiles = count_hit_tiles(s, view.width, view.height);
    if (s.tiles > 0) {
      s.radius = static_cast<std::int32_t>(ceilf(fminf(fmaxf(s.ext_x, s.ext_y), 1e9f)));
      const Vec3f c = render::sh_color(sh_degree, render::view_dir(mean, view.campos), g.sh_dc.data + row_element(i, 3, 0),
                                       g.sh_rest.data + row_element(i, 45, 0));
      s.rgb[0] = c.x;
      s.rgb[1] = c.y;
      s.rgb[2] = c.z;
      // what the normal output blends (a rotation matrix a splat: cheap next to the SH)
      const Vec3f nv = render::splat_normal(view, mean, load3(g.log_scales.data, i), load_quat(g.quats.data, i));
      s.normal[0] = nv.x;
      s.normal[1] = nv.y;
      s.normal[2] = nv.z;
    }
  }
  out[i] = s;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
