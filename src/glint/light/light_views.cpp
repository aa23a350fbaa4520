#include "glint/light/light_views.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "glint/core/error.h"

namespace glint {

SceneBounds bounds_of_points(const std::vector<float>& means) {
  const std::size_t n = means.size() / 3;
  SceneBounds b;
  if (n == 0) return b;
  Vec3d c{0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) c = c + Vec3d{means[3 * i], means[3 * i + 1], means[3 * i + 2]};
  c = (1.0 / n) * c;
  double r = 0;
  for (std::size_t i = 0; i < n; ++i) r = std::max(r, norm(Vec3d{means[3 * i], means[3 * i + 1], means[3 * i + 2]} - c));
  b.center = c;
  b.radius = std::max(1.05 * r, 1e-6);
  return b;
}

namespace {

// Camera with rows (right, down, forward) so that right x down = forward (OpenCV).
Camera oriented(Vec3d eye, Vec3d fwd, Vec3d down, int res, double f) {
  Camera c;
  c.width = c.height = res;
  c.fx = c.fy = f;
  c.cx = c.cy = res / 2.0;
  const Vec3d r = cross(down, fwd);
  c.R = {{r.x, r.y, r.z, down.x, down.y, down.z, fwd.x, fwd.y, fwd.z}};
  c.t = -(c.R * eye);
  return c;
}

}  // namespace

Camera look_camera(Vec3d eye, Vec3d forward, int res, double f) {
  const Vec3d fw = normalize(forward);
  // Down: world -Z projected off the forward axis, or -Y when looking (almost) vertically.
  Vec3d ref = std::abs(fw.z) < 0.9 ? Vec3d{0, 0, -1} : Vec3d{0, -1, 0};
  Vec3d down = normalize(ref - dot(ref, fw) * fw);
  return oriented(eye, fw, down, res, f);
}

LightViews make_light_views(const Light& light, const SceneBounds& b, int res, int guard, double sun_k) {
  if (res < 8 || res > 16384) throw Error("light view resolution must be in 8..16384");
  if (guard < 0 || 2 * guard >= res / 2) throw Error("light view guard band too wide for the resolution");
  LightViews v;
  v.guard_px = guard;
  // Nominal half field of view maps to res/2 - guard pixels from the centre.
  const double half_px = res / 2.0 - guard;
  const bool spot_cube = light.type == LightType::Spot && light.cone_angle > 2 * std::numbers::pi / 3;
  if (light.type == LightType::Point || spot_cube) {
    v.kind = LightViewKind::Cube;
    const Vec3d axes[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    const Vec3d downs[6] = {{0, 0, -1}, {0, 0, -1}, {0, 0, -1}, {0, 0, -1}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 6; ++k) v.faces.push_back(oriented(light.position, axes[k], downs[k], res, half_px));
  } else if (light.type == LightType::Spot) {
    v.kind = LightViewKind::Perspective;
    v.faces.push_back(look_camera(light.position, light.direction, res, half_px / std::tan(0.5 * light.cone_angle)));
  } else {
    v.kind = LightViewKind::Ortho;
    const double dist = sun_k * b.radius;
    v.faces.push_back(look_camera(b.center + dist * light.direction, -light.direction, res, half_px * dist / b.radius));
  }
  return v;
}

int spot_map_resolution(int resolution, double cone_angle, int guard_px) {
  // Texel solid angle at the map's centre, (2 tan(h) / side)^2, equal to 4 pi / (6 res^2).
  const double side = resolution * 2 * std::tan(0.5 * cone_angle) / std::sqrt(4 * std::numbers::pi / 6);
  const int lo = std::min(resolution, 4 * guard_px + 8);
  return std::clamp(static_cast<int>(std::lround(side)), lo, resolution);
}

int LightViews::face_of(Vec3d x) const {
  if (kind == LightViewKind::Cube) {
    const Vec3d d = faces[0].center();
    const Vec3d w = x - d;
    const double ax = std::abs(w.x), ay = std::abs(w.y), az = std::abs(w.z);
    if (ax >= ay && ax >= az) return w.x >= 0 ? 0 : 1;
    if (ay >= az) return w.y >= 0 ? 2 : 3;
    return w.z >= 0 ? 4 : 5;
  }
  const Camera& c = faces[0];
  const Vec3d pc = c.world_to_camera(x);
  if (!(pc.z > 0)) return -1;
  const Vec2d uv = c.project(pc);
  if (uv.x < guard_px || uv.y < guard_px || uv.x > c.width - guard_px || uv.y > c.height - guard_px) return -1;
  return 0;
}

int LightViews::face_facing(Vec3d x, Vec3d n, int face) const {
  if (kind != LightViewKind::Cube || face_switch_tan <= 0 || face < 0) return face;
  const Vec3d w = x - faces[0].center();
  const double a[3] = {std::abs(w.x), std::abs(w.y), std::abs(w.z)}, nn[3] = {n.x, n.y, n.z}, ww[3] = {w.x, w.y, w.z};
  const double major = std::max({a[0], a[1], a[2]});
  int best = face;
  double align = std::abs(nn[face / 2]);
  for (int k = 0; k < 3; ++k) {
    // Face k sees x within its grown frustum when every other |w| is at most (1 + s) |w_k|.
    if (k == face / 2 || !(a[k] > 0) || major > (1 + face_switch_tan) * a[k]) continue;
    if (std::abs(nn[k]) > align + 1e-9) {
      align = std::abs(nn[k]);
      best = 2 * k + (ww[k] >= 0 ? 0 : 1);
    }
  }
  return best;
}

}  // namespace glint
