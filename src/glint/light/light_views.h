#pragma once
// The cameras a light "sees" the scene with, shared by shadow maps, transmittance maps and
// ambient occlusion. The rasterizer only has perspective cameras, so:
//   point: a cube of 6 perspective faces (90 deg plus a guard band, see below),
//   spot : one perspective camera around the cone (a cube when the cone is wider than 120 deg),
//   sun  : orthographic emulated by a perspective camera `sun_distance_factor` scene radii
//          away with a narrow field of view; its rays diverge by at most 1/factor rad, and
//          since lookups project through the same camera, depths need no conversion.
// Every face keeps a guard band of `guard_px` texels beyond its nominal frustum, so PCF
// taps next to a cube-face border still land inside the face selected by the major axis,
// and no seam appears between faces.
#include <vector>

#include "glint/core/camera.h"
#include "glint/light/lights.h"

namespace glint {

struct SceneBounds {
  Vec3d center{0, 0, 0};
  double radius = 1;
};
// Bounding sphere of splat centres (means [N,3]): the mean centre and the largest distance,
// padded by 5%.
SceneBounds bounds_of_points(const std::vector<float>& means);

enum class LightViewKind { Cube, Perspective, Ortho };

struct LightViews {
  LightViewKind kind = LightViewKind::Cube;
  std::vector<Camera> faces;  // 6 for a cube (+X, -X, +Y, -Y, +Z, -Z), else 1
  int guard_px = 0;
  double face_switch_tan = 0;  // cube: how far past a face's edge face_facing may look (light_map.h)
  // The face a world point falls in (major axis for a cube), or -1 when it is outside
  // every face's nominal frustum (only possible for spot and sun).
  int face_of(Vec3d x) const;
  // Cube: `face`, or a face whose frustum grown by face_switch_tan holds x and whose axis
  // is closer to the normal n (the one that sees the surface most head-on).
  int face_facing(Vec3d x, Vec3d n, int face) const;
};

LightViews make_light_views(const Light& light, const SceneBounds& bounds, int resolution, int guard_px,
                            double sun_distance_factor = 1000.0);

// The side of a perspective spot shadow map for a `resolution` (a cube face's side): its
// texels at the centre subtend the mean solid angle of a cube face's (4 pi / 6 over
// resolution^2), so that the biases, which are in texels, and the map's detail mean for a
// spot what they mean for a point light. A spot's cone is far narrower than a cube face's
// 90 degrees: at the same side its texels would be several times finer, finer than the
// splats' depth noise (acne). At least 4 guard bands plus 8 texels, at most `resolution`.
int spot_map_resolution(int resolution, double cone_angle, int guard_px);

// A camera at `eye` looking along `forward`, with an "up" chosen deterministically from
// the world axes least aligned with `forward`.
Camera look_camera(Vec3d eye, Vec3d forward, int resolution, double focal_px);

}  // namespace glint
