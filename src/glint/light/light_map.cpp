#include "glint/light/light_map.h"

#include <cmath>
#include <numbers>
#include <string>

#include "glint/core/error.h"

namespace glint {

int light_map_guard_px(const LightMapParams& p) {
  return p.pcf_kernel / 2 + static_cast<int>(std::ceil(p.normal_offset)) + 2;
}

LightViews make_light_map_views(const Light& light, const SceneBounds& bounds, const LightMapParams& p,
                                const char* what) {
  if (p.pcf_kernel < 1 || p.pcf_kernel % 2 == 0) throw Error(std::string(what) + ": PCF kernel must be odd and >= 1");
  if (!(p.face_switch >= 0 && p.face_switch < 0.5)) throw Error(std::string(what) + ": face switch must be in [0, 0.5)");
  const int guard = light_map_guard_px(p);
  const bool cube = light.type == LightType::Point ||
                    (light.type == LightType::Spot && light.cone_angle > 2 * std::numbers::pi / 3);
  const int switch_px = cube ? static_cast<int>(std::ceil(p.face_switch * p.resolution / 2.0)) : 0;
  LightViews v = make_light_views(light, bounds, p.resolution, guard + switch_px, p.sun_distance_factor);
  // The band in tan units of the faces as made (their focal length is res/2 - guard).
  v.face_switch_tan = switch_px > 0 ? switch_px / v.faces[0].fx : 0;
  return v;
}

ShadowLookup shadow_lookup(const LightViews& views, const Light& light, Vec3d x, Vec3d n, const LightMapParams& p) {
  ShadowLookup r;
  r.face = views.face_of(x);
  if (r.face < 0) return r;
  const Camera& cam = views.faces[r.face];
  const double z0 = cam.world_to_camera(x).z;
  const double texel = z0 / cam.fx;  // world size of a texel at the point
  double tan_t = 0;
  if (dot(n, n) > 0) {
    const double c = std::clamp(dot(n, direction_to_light(light, x)), 1e-3, 1.0);
    tan_t = std::min(10.0, std::sqrt(1 - c * c) / c);
    x = x + (p.normal_offset * texel) * n;
    // The offset point may have crossed into a neighbouring cube face.
    const int f2 = views.face_of(x);
    if (f2 >= 0) r.face = f2;
    if (views.kind == LightViewKind::Cube) r.face = views.face_facing(x, n, r.face);
  }
  const Camera& c2 = views.faces[r.face];
  const Vec3d pc = c2.world_to_camera(x);
  const Vec2d uv = c2.project(pc);
  r.u = uv.x;
  r.v = uv.y;
  r.z = pc.z - (p.constant_bias + p.slope_bias * tan_t) * texel;
  return r;
}

}  // namespace glint
