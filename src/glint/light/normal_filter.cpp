#include "glint/light/normal_filter.h"

#include <cmath>
#include <vector>

#include "glint/core/error.h"
#include "glint/light/pixel_window.h"

namespace glint {

ImageF smooth_normals(const ImageF& normal, const ImageF& depth, const NormalFilterParams& p) {
  if (normal.channels != 3 || depth.channels != 1 || normal.width != depth.width || normal.height != depth.height)
    throw Error("smooth_normals: normal [H,W,3] and depth [H,W,1] of one size expected");
  if (!(p.sigma_spatial_px > 0)) return normal;
  if (!(p.sigma_depth_rel > 0) || !(p.sigma_angle_deg > 0)) throw Error("smooth_normals: sigmas must be > 0");
  const int W = normal.width, H = normal.height;
  const GaussianWindow window(p.sigma_spatial_px, p.radius_px);
  const float inv_d = 1.f / (2.f * p.sigma_depth_rel * p.sigma_depth_rel);
  const float inv_a = inv_angle_gaussian(p.sigma_angle_deg);
  ImageF out(W, H, 3);
#pragma omp parallel for schedule(dynamic, 4)
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * W + x;
      const float zi = depth.data[i];
      const float* ni = normal.data.data() + 3 * i;
      if (!(zi > 0) || (ni[0] == 0 && ni[1] == 0 && ni[2] == 0)) continue;
      double s[3] = {0, 0, 0};
      window.visit(W, H, x, y, [&](std::size_t j, float spatial) {
        const float zj = depth.data[j];
        if (!(zj > 0)) return;
        const float* nj = normal.data.data() + 3 * j;
        const float c = ni[0] * nj[0] + ni[1] * nj[1] + ni[2] * nj[2];
        if (c <= 0.f) return;
        const float dz = (zj - zi) / zi;
        const double w = spatial * std::exp(-dz * dz * inv_d - (1.f - c) * inv_a);
        for (int k = 0; k < 3; ++k) s[k] += w * nj[k];
      });
      const double len = std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
      if (!(len > 0)) continue;
      for (int k = 0; k < 3; ++k) out.data[3 * i + k] = static_cast<float>(s[k] / len);
    }
  return out;
}

}  // namespace glint
