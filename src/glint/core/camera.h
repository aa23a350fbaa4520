#pragma once
// A pinhole camera in the OpenCV/COLMAP convention: x right, y down, z forward, pose as
// world-to-camera (R, t), intrinsics in pixels at the loaded resolution. Distortion never
// reaches here: loaders undistort images to this ideal pinhole.
#include <string>

#include "glint/core/math.h"

namespace glint {

struct Camera {
  std::string name;  // image file name, for reports and output names
  int width = 0;
  int height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;
  Mat3d R = identity3<double>();  // world -> camera rotation
  Vec3d t{0, 0, 0};               // world -> camera translation

  Vec3d center() const {  // camera centre in world coordinates, -R^T t
    return -(transpose(R) * t);
  }
  Vec3d world_to_camera(Vec3d p) const { return R * p + t; }
  // Pixel coordinates (continuous, pixel centres at +0.5) of a point in camera space.
  Vec2d project(Vec3d pc) const { return {fx * pc.x / pc.z + cx, fy * pc.y / pc.z + cy}; }
  // The same camera for an image resized to w x h: intrinsics scaled by w / width and
  // h / height (pixel edges, not centres, stay in place), pose unchanged.
  Camera scaled_to(int w, int h) const {
    Camera c = *this;
    const double sx = static_cast<double>(w) / width, sy = static_cast<double>(h) / height;
    c.width = w;
    c.height = h;
    c.fx = fx * sx;
    c.fy = fy * sy;
    c.cx = cx * sx;
    c.cy = cy * sy;
    return c;
  }
};

}  // namespace glint
