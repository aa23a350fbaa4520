#include "glint/train/geometry_loss.h"

#include <cmath>

#include "glint/core/math.h"
#include "glint/train/normal_consistency_math.h"

namespace glint {

namespace {

Vec3d at3(const ImageF& img, int x, int y) {
  const float* p = &img.data[(static_cast<std::size_t>(y) * img.width + x) * 3];
  return {p[0], p[1], p[2]};
}

}  // namespace

NormalConsistency normal_consistency(const Camera& camera, const ImageF& normal, const ImageF& depth,
                                     const ImageF& alpha, float weight, float alpha_threshold,
                                     float edge_eps) {
  const int w = depth.width, h = depth.height;
  NormalConsistency r;
  r.d_normal = ImageF(w, h, 3);
  r.d_depth = ImageF(w, h, 1);
  auto ok = [&](int x, int y) {
    std::size_t i = static_cast<std::size_t>(y) * w + x;
    return normal_consistency_ok(alpha.data[i], depth.data[i], alpha_threshold);
  };
  auto valid = [&](int x, int y) {
    return x > 0 && y > 0 && x < w - 1 && y < h - 1 && ok(x, y) && ok(x - 1, y) && ok(x + 1, y) && ok(x, y - 1) &&
           ok(x, y + 1);
  };
  long count = 0;
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) count += valid(x, y);
  r.pixels = count;
  if (count == 0 || weight == 0) return r;
  const double scale = weight / static_cast<double>(count);
  const NcCamera cam{camera.R, camera.fx, camera.fy, camera.cx, camera.cy};
  double total = 0;
  // Rows write depth gradients into their neighbours' rows, so rows run in order; each
  // pixel's work is small and the image is a training image, not a poster.
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) {
      if (!valid(x, y)) continue;
      auto z = [&](int xx, int yy) { return static_cast<double>(depth.data[static_cast<std::size_t>(yy) * w + xx]); };
      if (normal_consistency_edge(z(x, y), z(x + 1, y), z(x - 1, y), z(x, y + 1), z(x, y - 1), edge_eps)) continue;
      NcPixel px;
      if (!normal_consistency_pixel(cam, x, y, z(x + 1, y), z(x - 1, y), z(x, y + 1), z(x, y - 1), at3(normal, x, y),
                                    px))
        continue;
      total += px.term;
      float* dn = &r.d_normal.data[(static_cast<std::size_t>(y) * w + x) * 3];
      dn[0] += static_cast<float>(scale * px.g_N.x);
      dn[1] += static_cast<float>(scale * px.g_N.y);
      dn[2] += static_cast<float>(scale * px.g_N.z);
      auto add = [&](int xx, int yy, double g) {
        r.d_depth.data[static_cast<std::size_t>(yy) * w + xx] += static_cast<float>(scale * g);
      };
      add(x + 1, y, px.g_depth[0]);
      add(x - 1, y, px.g_depth[1]);
      add(x, y + 1, px.g_depth[2]);
      add(x, y - 1, px.g_depth[3]);
    }
  r.loss = scale * total;
  return r;
}

DistortionLoss distortion_loss(const ImageF& distortion, float weight) {
  DistortionLoss r;
  const std::size_t n = distortion.data.size();
  if (n == 0) return r;
  const double scale = weight / static_cast<double>(n);
  double sum = 0;
  for (float v : distortion.data) sum += v;
  r.loss = scale * sum;
  r.d_distortion = ImageF(distortion.width, distortion.height, 1, static_cast<float>(scale));
  return r;
}

double flatten_loss(const GaussianModel& m, float weight, float* d_log_scales) {
  const std::size_t n = m.size();
  if (n == 0 || weight == 0) return 0;
  const double scale = weight / static_cast<double>(n);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* s = &m.log_scales[3 * i];
    int k = 0;
    if (s[1] < s[k]) k = 1;
    if (s[2] < s[k]) k = 2;
    const double v = std::exp(static_cast<double>(s[k]));
    total += v;
    d_log_scales[3 * i + k] += static_cast<float>(scale * v);  // d exp(s)/ds = exp(s)
  }
  return scale * total;
}

}  // namespace glint
