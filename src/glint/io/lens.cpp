#include "glint/io/lens.h"

#include <algorithm>
#include <cmath>

#include "glint/core/error.h"

namespace glint {

bool Distortion::is_identity() const {
  return k1 == 0 && k2 == 0 && k3 == 0 && k4 == 0 && k5 == 0 && k6 == 0 && p1 == 0 && p2 == 0;
}

Vec2d Distortion::distort(Vec2d p) const {
  double r2 = p.x * p.x + p.y * p.y;
  double num = 1 + r2 * (k1 + r2 * (k2 + r2 * k3));
  double den = 1 + r2 * (k4 + r2 * (k5 + r2 * k6));
  double radial = num / den;
  double xy = p.x * p.y;
  return {p.x * radial + 2 * p1 * xy + p2 * (r2 + 2 * p.x * p.x),
          p.y * radial + p1 * (r2 + 2 * p.y * p.y) + 2 * p2 * xy};
}

Vec2d Distortion::undistort(Vec2d target, bool* ok) const {
  // Newton's method with a numerical Jacobian: converges in a few steps for real lenses
  // and tells us when it does not (a model folding over itself inside the image).
  Vec2d p = target;
  const double h = 1e-7;
  for (int it = 0; it < 50; ++it) {
    Vec2d f = distort(p) - target;
    if (std::abs(f.x) < 1e-12 && std::abs(f.y) < 1e-12) break;
    Vec2d fx = distort({p.x + h, p.y}) - target, fy = distort({p.x, p.y + h}) - target;
    double a = (fx.x - f.x) / h, b = (fy.x - f.x) / h, c = (fx.y - f.y) / h, d = (fy.y - f.y) / h;
    double det = a * d - b * c;
    if (!(std::abs(det) > 1e-12)) break;
    p = {p.x - (d * f.x - b * f.y) / det, p.y - (-c * f.x + a * f.y) / det};
  }
  Vec2d r = distort(p) - target;
  if (ok) *ok = std::isfinite(p.x) && std::isfinite(p.y) && std::abs(r.x) < 1e-6 && std::abs(r.y) < 1e-6;
  return p;
}

Intrinsics undistorted_intrinsics(const SourceCamera& src, const std::string& what) {
  const Intrinsics& k = src.k;
  if (src.dist.is_identity()) return k;
  // Walk the outline of the source image in normalised coordinates and keep the
  // innermost extent on each side: the rectangle inside it has no pixel without data.
  const int steps = 256;
  double left = -1e300, right = 1e300, top = -1e300, bottom = 1e300;
  for (int i = 0; i <= steps; ++i) {
    double s = static_cast<double>(i) / steps;
    auto at = [&](double u, double v) {
      bool ok = false;
      Vec2d p = src.dist.undistort({(u - k.cx) / k.fx, (v - k.cy) / k.fy}, &ok);
      if (!ok) throw Error(what, "lens distortion cannot be inverted over the image (model folds over itself)");
      return p;
    };
    left = std::max(left, at(0, s * k.height).x);
    right = std::min(right, at(k.width, s * k.height).x);
    top = std::max(top, at(s * k.width, 0).y);
    bottom = std::min(bottom, at(s * k.width, k.height).y);
  }
  if (!(right > left) || !(bottom > top))
    throw Error(what, "lens distortion leaves no usable image area after undistortion");
  Intrinsics out = k;
  out.fx = k.width / (right - left);
  out.fy = k.height / (bottom - top);
  out.cx = -left * out.fx;
  out.cy = -top * out.fy;
  return out;
}

Image8 undistort_image(const Image8& image, const SourceCamera& src, const Intrinsics& dst) {
  const int c = image.channels;
  // The image may be a uniformly scaled version of what the intrinsics describe.
  const double sx = static_cast<double>(image.width) / src.k.width;
  const double sy = static_cast<double>(image.height) / src.k.height;
  Image8 out;
  out.width = dst.width;
  out.height = dst.height;
  out.channels = c;
  out.data.resize(static_cast<std::size_t>(dst.width) * dst.height * c);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    std::uint8_t* row = out.row(y);
    for (int x = 0; x < dst.width; ++x) {
      Vec2d n{(x + 0.5 - dst.cx) / dst.fx, (y + 0.5 - dst.cy) / dst.fy};
      Vec2d d = src.dist.distort(n);
      double u = (d.x * src.k.fx + src.k.cx) * sx - 0.5, v = (d.y * src.k.fy + src.k.cy) * sy - 0.5;
      u = std::clamp(u, 0.0, image.width - 1.0);
      v = std::clamp(v, 0.0, image.height - 1.0);
      int x0 = std::min(static_cast<int>(u), image.width - 2 < 0 ? 0 : image.width - 2);
      int y0 = std::min(static_cast<int>(v), image.height - 2 < 0 ? 0 : image.height - 2);
      int x1 = std::min(x0 + 1, image.width - 1), y1 = std::min(y0 + 1, image.height - 1);
      double fx = u - x0, fy = v - y0;
      const std::uint8_t* r0 = image.row(y0);
      const std::uint8_t* r1 = image.row(y1);
      for (int ch = 0; ch < c; ++ch) {
        double top = r0[x0 * c + ch] * (1 - fx) + r0[x1 * c + ch] * fx;
        double bot = r1[x0 * c + ch] * (1 - fx) + r1[x1 * c + ch] * fx;
        row[x * c + ch] = static_cast<std::uint8_t>(std::lround(std::clamp(top * (1 - fy) + bot * fy, 0.0, 255.0)));
      }
    }
  }
  return out;
}

}  // namespace glint
