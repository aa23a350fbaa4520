#include "glint/light/plane_depth.h"

#include <cmath>

#include "glint/core/error.h"
#include "glint/core/math.h"
#include "glint/light/splat_occlusion.h"

namespace glint {

PlaneDepth render_plane_depth(const GaussianModel& model, Backend& backend, const Camera& camera,
                              float alpha_threshold, const ImageF* view_alpha, const ImageF* view_normal) {
  const int w = camera.width, h = camera.height;
  const std::size_t np = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  const bool given = view_alpha || view_normal;
  if (given && (!view_alpha || !view_normal || view_alpha->data.size() != np || view_normal->data.size() != 3 * np))
    throw Error("planar depth: the view's alpha and normal images are not both given at the size of camera '" +
                camera.name + "'");
  GaussianModel offsets = model;
  offsets.sh_degree = 0;
  const Vec3d eye = camera.center();
  const long n = static_cast<long>(model.size());
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    const SplatSurfel s = splat_surfel(model, static_cast<std::size_t>(i));
    const double d = std::fabs(dot(s.axis, s.centre - eye));
    float* dc = &offsets.sh_dc[3 * static_cast<std::size_t>(i)];
    dc[0] = static_cast<float>((d - 0.5) / kShC0);  // colour = kShC0 dc + 0.5 = d
    dc[1] = dc[2] = -0.5f / kShC0;                  // 0
  }
  RenderSettings rs;  // black background: rgb is sum w_i |d_i|
  rs.for_backward = false;
  rs.want_alpha = !given;
  rs.want_normal = !given;  // the copy keeps the model's 2D filter mark
  const RenderOutput out = backend.forward(offsets, camera, rs);
  const ImageF& alpha = given ? *view_alpha : out.alpha;
  const ImageF& normal = given ? *view_normal : out.normal;
  // Every pixel is written below, on every thread: no clearing pass first.
  PlaneDepth pd{ImageF::uninitialized(w, h, 1), ImageF::uninitialized(w, h, 3)};
  const Mat3d Rt = transpose(camera.R);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t p = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
      pd.depth.data[p] = 0.f;
      for (std::size_t c = 0; c < 3; ++c) pd.position.data[3 * p + c] = 0.f;
      if (alpha.data[p] < alpha_threshold) continue;
      const Vec3d r = Rt * Vec3d{(x + 0.5 - camera.cx) / camera.fx, (y + 0.5 - camera.cy) / camera.fy, 1.0};
      const Vec3d N{normal.data[3 * p], normal.data[3 * p + 1], normal.data[3 * p + 2]};
      const double facing = -dot(N, r);
      // A blend of planes that all but graze the ray (or of normals that cancel) has no
      // intersection worth the name.
      if (!(facing > 1e-3 * norm(N) * norm(r))) continue;
      const double z = out.rgb.data[3 * p] / facing;
      pd.depth.data[p] = static_cast<float>(z);
      const Vec3d q = eye + z * r;
      for (int c = 0; c < 3; ++c) pd.position.data[3 * p + static_cast<std::size_t>(c)] = static_cast<float>((&q.x)[c]);
    }
  return pd;
}

}  // namespace glint
