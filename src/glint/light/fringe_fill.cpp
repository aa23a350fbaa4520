#include "glint/light/fringe_fill.h"

#include <algorithm>
#include <vector>

#include "glint/core/error.h"

namespace glint {

long fill_fringe_geometry(const ImageF& alpha, ImageF& depth, ImageF& position, ImageF& normal,
                          const FringeFillParams& p) {
  const int W = alpha.width, H = alpha.height;
  const auto same = [&](const ImageF& im, int c) { return im.width == W && im.height == H && im.channels == c; };
  if (alpha.channels != 1 || !same(depth, 1) || !same(position, 3) || !same(normal, 3))
    throw Error("fill_fringe_geometry: alpha and depth [H,W,1], position and normal [H,W,3] of one size expected");
  if (p.radius_px < 0) throw Error("fill_fringe_geometry: the radius must be >= 0");
  const std::size_t np = static_cast<std::size_t>(W) * H;
  auto is_surface = [&](std::size_t i) {
    const float* n = normal.data.data() + 3 * i;
    return depth.data[i] > 0 && (n[0] != 0 || n[1] != 0 || n[2] != 0);
  };
  std::vector<char> surface(np);
  for (std::size_t i = 0; i < np; ++i) surface[i] = is_surface(i);
  // Every source is chosen before any pixel is written, so none is a filled pixel.
  std::vector<long> source(np, -1);
  const int r = p.radius_px;
#pragma omp parallel for schedule(dynamic, 8)
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * W + x;
      if (surface[i] || !(alpha.data[i] >= p.min_alpha)) continue;
      long best = -1;
      float best_a = 0;
      int best_d = 0;
      for (int yy = std::max(0, y - r); yy <= std::min(H - 1, y + r); ++yy)
        for (int xx = std::max(0, x - r); xx <= std::min(W - 1, x + r); ++xx) {
          const std::size_t j = static_cast<std::size_t>(yy) * W + xx;
          if (!surface[j]) continue;
          const float a = alpha.data[j];
          const int d = (xx - x) * (xx - x) + (yy - y) * (yy - y);
          if (best < 0 || a > best_a || (a == best_a && d < best_d)) {
            best = static_cast<long>(j);
            best_a = a;
            best_d = d;
          }
        }
      source[i] = best;
    }
  long filled = 0;
  for (std::size_t i = 0; i < np; ++i) {
    const long s = source[i];
    if (s < 0) continue;
    const auto j = static_cast<std::size_t>(s);
    depth.data[i] = depth.data[j];
    for (int c = 0; c < 3; ++c) {
      position.data[3 * i + c] = position.data[3 * j + c];
      normal.data[3 * i + c] = normal.data[3 * j + c];
    }
    ++filled;
  }
  return filled;
}

}  // namespace glint
