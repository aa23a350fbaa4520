#pragma once
// The square pixel window that the edge-aware filters (depth_filter, normal_filter,
// normal_plane_fit) slide over an image: Gaussian spatial weights and a visit of the
// in-image neighbours, every pixel or every stride-th pixel of every stride-th row.
#include <cmath>
#include <cstddef>
#include <vector>

namespace glint {

// The factor of a Gaussian in the angle between two unit normals written in their cosine:
// 1 - cos ~ angle^2 / 2, so exp(-angle^2 / (2 s^2)) ~ exp(-(1 - cos) * this).
inline float inv_angle_gaussian(float sigma_deg) {
  const float s = static_cast<float>(sigma_deg * M_PI / 180.0);
  return 1.f / (s * s);
}

class GaussianWindow {
 public:
  // Half size `radius`, or ceil(2 sigma) when radius <= 0, rounded down to a multiple of
  // `stride` (offsets from the centre are multiples of it).
  GaussianWindow(float sigma, int radius, int stride = 1)
      : s_(stride > 1 ? stride : 1), r_(half_size(sigma, radius, s_)) {
    const int n = 2 * r_ + 1;
    w_.resize(static_cast<std::size_t>(n * n));
    for (int dy = -r_; dy <= r_; ++dy)
      for (int dx = -r_; dx <= r_; ++dx)
        w_[index(dx, dy)] = std::exp(-static_cast<float>(dx * dx + dy * dy) / (2.f * sigma * sigma));
  }
  int radius() const { return r_; }
  int stride() const { return s_; }

  // f(dx, dy, spatial_weight) for every offset of the window, in row-major order (the
  // order visit() takes them in), whatever lies inside the image.
  template <class F>
  void visit_offsets(F&& f) const {
    for (int dy = -r_; dy <= r_; dy += s_)
      for (int dx = -r_; dx <= r_; dx += s_) f(dx, dy, w_[index(dx, dy)]);
  }

  // f(j, spatial_weight) for every pixel j = yy * W + xx of the window around (x, y) inside
  // the W x H image, in row-major order.
  template <class F>
  void visit(int W, int H, int x, int y, F&& f) const {
    for (int dy = -r_; dy <= r_; dy += s_) {
      const int yy = y + dy;
      if (yy < 0 || yy >= H) continue;
      for (int dx = -r_; dx <= r_; dx += s_) {
        const int xx = x + dx;
        if (xx < 0 || xx >= W) continue;
        f(static_cast<std::size_t>(yy) * static_cast<std::size_t>(W) + static_cast<std::size_t>(xx), w_[index(dx, dy)]);
      }
    }
  }

 private:
  static int half_size(float sigma, int radius, int stride) {
    const int r = radius > 0 ? radius : static_cast<int>(std::ceil(2 * sigma));
    return r / stride * stride;
  }
  std::size_t index(int dx, int dy) const { return static_cast<std::size_t>((dy + r_) * (2 * r_ + 1) + dx + r_); }
  int s_;
  int r_;
  std::vector<float> w_;
};

}  // namespace glint
