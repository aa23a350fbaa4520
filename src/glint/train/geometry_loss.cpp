#include "glint/train/geometry_loss.h"

#include <cmath>

#include "glint/core/math.h"

namespace glint {

namespace {

// Camera-space ray through the centre of pixel (x, y), with z = 1.
Vec3d pixel_ray(const Camera& c, int x, int y) { return {(x + 0.5 - c.cx) / c.fx, (y + 0.5 - c.cy) / c.fy, 1.0}; }

Vec3d at3(const ImageF& img, int x, int y) {
  const float* p = &img.data[(static_cast<std::size_t>(y) * img.width + x) * 3];
  return {p[0], p[1], p[2]};
}

}  // namespace

NormalConsistency normal_consistency(const Camera& camera, const ImageF& normal, const ImageF& depth,
                                     const ImageF& alpha, float weight, float alpha_threshold) {
  const int w = depth.width, h = depth.height;
  NormalConsistency r;
  r.d_normal = ImageF(w, h, 3);
  r.d_depth = ImageF(w, h, 1);
  auto ok = [&](int x, int y) {
    std::size_t i = static_cast<std::size_t>(y) * w + x;
    return alpha.data[i] > alpha_threshold && depth.data[i] > 0;
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
  const Mat3d& R = camera.R;
  const Mat3d Rt = transpose(R);
  double total = 0;
  // Rows write depth gradients into their neighbours' rows, so rows run in order; each
  // pixel's work is small and the image is a training image, not a poster.
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) {
      if (!valid(x, y)) continue;
      auto z = [&](int xx, int yy) { return static_cast<double>(depth.data[static_cast<std::size_t>(yy) * w + xx]); };
      const Vec3d rl = pixel_ray(camera, x - 1, y), rr = pixel_ray(camera, x + 1, y);
      const Vec3d ru = pixel_ray(camera, x, y - 1), rd = pixel_ray(camera, x, y + 1);
      const Vec3d dx = z(x + 1, y) * rr - z(x - 1, y) * rl;
      const Vec3d dy = z(x, y + 1) * rd - z(x, y - 1) * ru;
      const Vec3d c = cross(dx, dy);
      const double cl = norm(c);
      const Vec3d N = at3(normal, x, y);
      const double nl = norm(N);
      if (cl < 1e-20 || nl < 1e-12) continue;
      const Vec3d nd_cam = (-1.0 / cl) * c;  // facing the camera (which looks along +z)
      const Vec3d nd = Rt * nd_cam;
      const Vec3d nr = (1.0 / nl) * N;
      const double cosang = dot(nr, nd);
      total += 1.0 - cosang;
      // d(1 - nr.nd): w.r.t. N through the normalisation ...
      const Vec3d g_nr = -nd;
      const Vec3d g_N = (1.0 / nl) * (g_nr - dot(g_nr, nr) * nr);
      float* dn = &r.d_normal.data[(static_cast<std::size_t>(y) * w + x) * 3];
      dn[0] += static_cast<float>(scale * g_N.x);
      dn[1] += static_cast<float>(scale * g_N.y);
      dn[2] += static_cast<float>(scale * g_N.z);
      // ... and w.r.t. the depth normal, back through the rotation, normalisation, cross
      // product and the back-projection of the four neighbours.
      const Vec3d g_nd_cam = R * (-nr);
      const Vec3d chat = (1.0 / cl) * c;
      const Vec3d g_c = (-1.0 / cl) * (g_nd_cam - dot(g_nd_cam, chat) * chat);
      const Vec3d g_dx = cross(dy, g_c), g_dy = cross(g_c, dx);
      auto add = [&](int xx, int yy, double g) {
        r.d_depth.data[static_cast<std::size_t>(yy) * w + xx] += static_cast<float>(scale * g);
      };
      add(x + 1, y, dot(g_dx, rr));
      add(x - 1, y, -dot(g_dx, rl));
      add(x, y + 1, dot(g_dy, rd));
      add(x, y - 1, -dot(g_dy, ru));
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
