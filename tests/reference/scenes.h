#pragma once
// Random scenes and cameras for the rasterizer tests.
#include <cstdint>

#include "glint/core/camera.h"
#include "glint/core/gaussians.h"

namespace glint::test {

// OpenCV camera at `eye` looking at `target` (world z up), principal point at the centre
// unless given.
Camera look_at(int width, int height, double focal, Vec3d eye, Vec3d target, double cx = -1, double cy = -1);

struct SceneOptions {
  int sh_degree = 3;
  double radius = 1.0;         // means uniform in a ball of this radius around the origin
  double log_scale_min = -4.5, log_scale_max = -2.0;
  double sh_rest_scale = 0.15;  // random SH rest coefficients in [-s, s]
  bool hard_cases = true;       // behind the camera, straddling the near plane, huge,
                                // degenerate, zero quaternions
  Vec3d eye{0, -3, 0.5};        // where the hard cases are placed relative to
};

GaussianModel random_scene(int n, std::uint64_t seed, const SceneOptions& opt = {});

}  // namespace glint::test
