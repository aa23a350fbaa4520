#include "glint/light/depth_filter.h"

#include <cmath>
#include <vector>

#include "glint/core/error.h"
#include "glint/light/geometry.h"
#include "glint/light/pixel_window.h"

namespace glint {
namespace {

void check_same(const ImageF& a, const ImageF* b, const char* what) {
  if (b && (b->width != a.width || b->height != a.height))
    throw Error(std::string(what) + " size differs from the depth image");
}

std::vector<unsigned char> validity(const ImageF& depth, const ImageF* alpha, float thr) {
  if (depth.channels != 1) throw Error("depth image must have 1 channel");
  check_same(depth, alpha, "alpha");
  if (alpha && alpha->channels != 1) throw Error("alpha image must have 1 channel");
  std::vector<unsigned char> v(depth.data.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = valid_depth(depth.data[i]) && (!alpha || alpha->data[i] > thr);
  return v;
}

}  // namespace

ImageF joint_bilateral_depth(const ImageF& depth, const ImageF& guide, const ImageF* alpha,
                             const DepthFilterParams& p) {
  const auto valid = validity(depth, alpha, p.alpha_threshold);
  check_same(depth, &guide, "guide");
  if (!(p.sigma_spatial_px > 0) || !(p.sigma_range > 0)) throw Error("bilateral filter sigmas must be > 0");
  const int W = depth.width, H = depth.height, C = guide.channels;
  const GaussianWindow window(p.sigma_spatial_px, p.radius_px);
  const float inv2r2 = 1.f / (2.f * p.sigma_range * p.sigma_range);
  ImageF out = depth;
#pragma omp parallel for schedule(dynamic, 4)
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * W + x;
      if (!valid[i]) continue;
      const float* gc = guide.data.data() + i * C;
      double sw = 0, sd = 0;  // double: sums over up to ~100 taps stay order-independent enough
      window.visit(W, H, x, y, [&](std::size_t j, float spatial) {
        if (!valid[j]) return;
        const float* gq = guide.data.data() + j * C;
        float d2 = 0;
        for (int c = 0; c < C; ++c) d2 += (gc[c] - gq[c]) * (gc[c] - gq[c]);
        const double wgt = spatial * std::exp(-d2 * inv2r2);
        sw += wgt;
        sd += wgt * depth.data[j];
      });
      out.data[i] = static_cast<float>(sd / sw);  // sw >= 1: the centre tap is valid
    }
  return out;
}

ImageF normals_from_depth(const Camera& cam, const ImageF& depth, const ImageF* alpha, float thr) {
  const auto valid = validity(depth, alpha, thr);
  const int W = depth.width, H = depth.height;
  ImageF out(W, H, 3);
  auto ok = [&](int x, int y) { return x >= 0 && y >= 0 && x < W && y < H && valid[y * W + x]; };
  auto P = [&](int x, int y) { return backproject(cam, x, y, depth.at(x, y, 0)); };
  // Difference along one axis: forward (b - p) or backward (p - a), whichever neighbour's
  // depth is closer to the centre, so both sides of a step get their own surface's slope.
  auto diff = [&](int x, int y, int sx, int sy, Vec3d& d) {
    const bool f = ok(x + sx, y + sy), b = ok(x - sx, y - sy);
    if (!f && !b) return false;
    const double z = depth.at(x, y, 0);
    bool use_f = f;
    if (f && b) use_f = std::abs(depth.at(x + sx, y + sy, 0) - z) <= std::abs(z - depth.at(x - sx, y - sy, 0));
    d = use_f ? P(x + sx, y + sy) - P(x, y) : P(x, y) - P(x - sx, y - sy);
    return true;
  };
#pragma omp parallel for schedule(static)
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      if (!valid[y * W + x]) continue;
      Vec3d dx, dy;
      if (!diff(x, y, 1, 0, dx) || !diff(x, y, 0, 1, dy)) continue;
      Vec3d n = cross(dx, dy);
      const double len = norm(n);
      if (!(len > 0)) continue;
      n = (1 / len) * n;
      if (dot(n, P(x, y)) > 0) n = -n;  // face the camera (which sits at the origin)
      store3(out.data.data(), static_cast<long>(y) * W + x, Vec3f{float(n.x), float(n.y), float(n.z)});
    }
  return out;
}

ImageF world_normals_from_depth(const Camera& cam, const ImageF& depth, const ImageF* alpha, float thr) {
  return normals_to_world(cam, normals_from_depth(cam, depth, alpha, thr));
}

}  // namespace glint
