#pragma once
// The camera as the per-element math sees it: a plain struct of numbers (no strings, no
// doubles unless T is double), built on the host from a glint::Camera.
#include "glint/core/hd.h"
#include "glint/render/isa.h"
#include "glint/core/math.h"

namespace glint::render {
inline namespace GLINT_RENDER_NS {

inline constexpr int kTileSize = 16;

template <class T>
struct ViewT {
  T R[9];       // world -> camera rotation, row-major
  T t[3];       // world -> camera translation
  T campos[3];  // camera centre in world coordinates
  T fx, fy, cx, cy;
  // Limits of x/z and y/z used to clamp the projection Jacobian: 1.3x the image's
  // tan-fov on each side (asymmetric when the principal point is off-centre).
  T lim_x_neg, lim_x_pos, lim_y_neg, lim_y_pos;
  T near_plane;  // splats whose centre has z < near_plane are culled
  int width, height;
};

template <class T>
GLINT_HD inline Vec3<T> view_rotate(const ViewT<T>& v, Vec3<T> p) {
  return {v.R[0] * p.x + v.R[1] * p.y + v.R[2] * p.z, v.R[3] * p.x + v.R[4] * p.y + v.R[5] * p.z,
          v.R[6] * p.x + v.R[7] * p.y + v.R[8] * p.z};
}
template <class T>
GLINT_HD inline Vec3<T> view_rotate_t(const ViewT<T>& v, Vec3<T> p) {  // R^T p
  return {v.R[0] * p.x + v.R[3] * p.y + v.R[6] * p.z, v.R[1] * p.x + v.R[4] * p.y + v.R[7] * p.z,
          v.R[2] * p.x + v.R[5] * p.y + v.R[8] * p.z};
}
template <class T>
GLINT_HD inline Vec3<T> world_to_view(const ViewT<T>& v, Vec3<T> p) {
  Vec3<T> r = view_rotate(v, p);
  return {r.x + v.t[0], r.y + v.t[1], r.z + v.t[2]};
}

// Host helper: a ViewT from any camera-like type with R, t, fx, fy, cx, cy, width, height.
template <class T, class Cam>
inline ViewT<T> make_view(const Cam& cam, double near_plane) {
  ViewT<T> v{};
  for (int i = 0; i < 9; ++i) v.R[i] = static_cast<T>(cam.R.m[i]);
  v.t[0] = static_cast<T>(cam.t.x);
  v.t[1] = static_cast<T>(cam.t.y);
  v.t[2] = static_cast<T>(cam.t.z);
  auto c = cam.center();
  v.campos[0] = static_cast<T>(c.x);
  v.campos[1] = static_cast<T>(c.y);
  v.campos[2] = static_cast<T>(c.z);
  v.fx = static_cast<T>(cam.fx);
  v.fy = static_cast<T>(cam.fy);
  v.cx = static_cast<T>(cam.cx);
  v.cy = static_cast<T>(cam.cy);
  v.lim_x_neg = static_cast<T>(1.3 * cam.cx / cam.fx);
  v.lim_x_pos = static_cast<T>(1.3 * (cam.width - cam.cx) / cam.fx);
  v.lim_y_neg = static_cast<T>(1.3 * cam.cy / cam.fy);
  v.lim_y_pos = static_cast<T>(1.3 * (cam.height - cam.cy) / cam.fy);
  v.near_plane = static_cast<T>(near_plane);
  v.width = cam.width;
  v.height = cam.height;
  return v;
}

}  // namespace GLINT_RENDER_NS
}  // namespace glint::render
