#include "glint/partition/box_coverage.h"

#include <algorithm>
#include <cmath>

namespace glint::partition {

namespace {

double cross2(Vec2d o, Vec2d a, Vec2d b) { return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x); }

// Counter-clockwise convex hull (Andrew's monotone chain); collinear points dropped.
std::vector<Vec2d> convex_hull(std::vector<Vec2d> p) {
  std::sort(p.begin(), p.end(), [](Vec2d a, Vec2d b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  if (p.size() < 3) return p;
  std::vector<Vec2d> h(2 * p.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  h.resize(k - 1);
  return h;
}

// Sutherland-Hodgman against one half-plane: keep where inside(p) >= 0 (a linear function).
template <class F>
std::vector<Vec2d> clip_half_plane(const std::vector<Vec2d>& poly, F inside) {
  std::vector<Vec2d> out;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Vec2d a = poly[i], b = poly[(i + 1) % poly.size()];
    const double fa = inside(a), fb = inside(b);
    if (fa >= 0) out.push_back(a);
    if ((fa >= 0) != (fb >= 0)) {
      const double t = fa / (fa - fb);
      out.push_back(a + t * (b - a));
    }
  }
  return out;
}

double polygon_area(const std::vector<Vec2d>& p) {
  double a = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Vec2d q = p[i], r = p[(i + 1) % p.size()];
    a += q.x * r.y - r.x * q.y;
  }
  return 0.5 * std::abs(a);
}

}  // namespace

std::array<Vec3d, 8> ground_box(const GroundFrame& frame, const GroundRect& rect, double h0, double h1) {
  std::array<Vec3d, 8> c;
  for (int i = 0; i < 8; ++i)
    c[static_cast<std::size_t>(i)] =
        frame.to_world({(i & 1) ? rect.u1 : rect.u0, (i & 2) ? rect.v1 : rect.v0, (i & 4) ? h1 : h0});
  return c;
}

namespace {

// The box's outline in the image, clipped to it (empty when not in view).
std::vector<Vec2d> clipped_outline(const Camera& camera, const std::array<Vec3d, 8>& corners) {
  std::array<Vec3d, 8> cam;
  double reach = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    cam[i] = camera.world_to_camera(corners[i]);
    reach = std::max(reach, norm(cam[i]));
  }
  // The box in front of a near plane: its corners there, and where its 12 edges cross it.
  const double z_near = 1e-9 * std::max(reach, 1e-300);
  std::vector<Vec3d> front;
  for (const Vec3d& p : cam)
    if (p.z >= z_near) front.push_back(p);
  for (int i = 0; i < 8; ++i)
    for (int bit = 1; bit < 8; bit <<= 1) {
      const int j = i | bit;
      if (j == i) continue;
      const Vec3d a = cam[static_cast<std::size_t>(i)], b = cam[static_cast<std::size_t>(j)];
      if ((a.z >= z_near) == (b.z >= z_near)) continue;
      const double t = (z_near - a.z) / (b.z - a.z);
      front.push_back(a + t * (b - a));
    }
  if (front.size() < 3) return {};
  std::vector<Vec2d> px;
  for (const Vec3d& p : front) px.push_back(camera.project(p));
  std::vector<Vec2d> poly = convex_hull(px);
  if (poly.size() < 3) return {};
  const double w = camera.width, h = camera.height;
  poly = clip_half_plane(poly, [](Vec2d p) { return p.x; });
  poly = clip_half_plane(poly, [w](Vec2d p) { return w - p.x; });
  poly = clip_half_plane(poly, [](Vec2d p) { return p.y; });
  poly = clip_half_plane(poly, [h](Vec2d p) { return h - p.y; });
  if (poly.size() < 3) return {};
  return poly;
}

}  // namespace

double box_image_share(const Camera& camera, const std::array<Vec3d, 8>& corners) {
  const std::vector<Vec2d> poly = clipped_outline(camera, corners);
  if (poly.empty()) return 0;
  return std::min(1.0, polygon_area(poly) / (static_cast<double>(camera.width) * camera.height));
}

PixelWindow box_image_window(const Camera& camera, const std::array<Vec3d, 8>& corners) {
  const std::vector<Vec2d> poly = clipped_outline(camera, corners);
  if (poly.empty() || polygon_area(poly) <= 0) return {};
  double x0 = camera.width, y0 = camera.height, x1 = 0, y1 = 0;
  for (const Vec2d& p : poly) {
    x0 = std::min(x0, p.x);
    y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x);
    y1 = std::max(y1, p.y);
  }
  PixelWindow w{static_cast<int>(std::floor(x0)), static_cast<int>(std::floor(y0)), static_cast<int>(std::ceil(x1)),
                static_cast<int>(std::ceil(y1))};
  w.x0 = std::clamp(w.x0, 0, camera.width);
  w.x1 = std::clamp(w.x1, 0, camera.width);
  w.y0 = std::clamp(w.y0, 0, camera.height);
  w.y1 = std::clamp(w.y1, 0, camera.height);
  return w;
}

std::vector<double> ground_footprint_shares(const Camera& camera, const GroundFrame& frame,
                                            const std::vector<GroundRect>& cells, const GroundRect& bounds,
                                            int samples) {
  std::vector<double> share(cells.size(), 0.0);
  const int nx = std::max(1, samples);
  const int ny = std::max(1, static_cast<int>(std::lround(samples * static_cast<double>(camera.height) / camera.width)));
  const Mat3d to_world = transpose(camera.R);
  const Vec3d o = frame.to_local(camera.center());
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      const double px = (x + 0.5) * camera.width / nx, py = (y + 0.5) * camera.height / ny;
      const Vec3d d_world = to_world * Vec3d{(px - camera.cx) / camera.fx, (py - camera.cy) / camera.fy, 1.0};
      const Vec3d d{dot(d_world, frame.u), dot(d_world, frame.v), dot(d_world, frame.up)};
      if (d.z >= 0 || o.z <= 0) continue;  // never meets the ground in front of the camera
      const double t = -o.z / d.z;
      const Vec2d hit{o.x + t * d.x, o.y + t * d.y};
      for (std::size_t k = 0; k < cells.size(); ++k)
        if (contains_clamped(cells[k], bounds, hit)) {
          share[k] += 1;
          break;
        }
    }
  for (double& s : share) s /= static_cast<double>(nx * ny);
  return share;
}

}  // namespace glint::partition
