#pragma once
// Per-pixel geometry of a camera view: back-projection of z-depth images and changes of
// frame for normal images. Depth is z-depth along the optical axis (OpenCV camera, pixel
// centres at +0.5), the definition of the relight dataset's gt/depth and of the rasterizer.
#include "glint/core/camera.h"
#include "glint/core/image.h"

namespace glint {

// True where a depth value can be back-projected.
inline bool valid_depth(float z) { return z > 0.f && z < 3.0e38f; }

// Camera-space point of pixel (x, y) at z-depth z.
inline Vec3d backproject(const Camera& cam, int x, int y, double z) {
  return {z * (x + 0.5 - cam.cx) / cam.fx, z * (y + 0.5 - cam.cy) / cam.fy, z};
}

// [H,W,3] camera-space points; (0,0,0) where the depth is not valid.
ImageF camera_points_from_depth(const Camera& camera, const ImageF& depth);
// [H,W,3] world-space points X = R^T (Xc - t); (0,0,0) where the depth is not valid.
ImageF world_positions_from_depth(const Camera& camera, const ImageF& depth);
// Rotates a camera-space normal image to world space (n_w = R^T n_c); zero stays zero.
ImageF normals_to_world(const Camera& camera, const ImageF& normals_camera);
// And back (n_c = R n_w).
ImageF normals_to_camera(const Camera& camera, const ImageF& normals_world);

}  // namespace glint
