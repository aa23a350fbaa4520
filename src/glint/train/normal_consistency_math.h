#pragma once
// Normal consistency's per-pixel math (geometry_loss.h's definition), shared by the CPU
// loss (geometry_loss.cpp) and the CUDA backend's kernels
// (backend/cuda/kernels/geometry_loss_kernels.h): which pixels take part, which sit on a
// depth edge, and one pixel's term with its gradients. GLINT_HD functions on plain values only, in double.
#include "glint/core/hd.h"
#include "glint/core/math.h"

namespace glint {

// A pixel's own test: covered and in front of the camera.
GLINT_HD inline bool normal_consistency_ok(float alpha, float depth, float alpha_threshold) {
  return alpha > alpha_threshold && depth > 0;
}

// The depth-edge test of --normal-edge: true where a pixel's neighbours at +-1 do not lie on
// one plane with it, along x or along y, so that its central-difference depth normal would
// straddle a depth step. Along a plane, 1/z is affine in the pixel coordinates, so its
// second difference vanishes; the test is |1/z(+1) + 1/z(-1) - 2/z| > eps / z on both axes
// (a relative bound: the same eps at every distance). eps <= 0 never skips.
GLINT_HD inline bool normal_consistency_edge(double z, double z_right, double z_left, double z_down, double z_up,
                                             double eps) {
  if (!(eps > 0)) return false;
  const double bound = eps / z;
  const double c = 2.0 / z;
  const double ddx = 1.0 / z_right + 1.0 / z_left - c;
  const double ddy = 1.0 / z_down + 1.0 / z_up - c;
  return (ddx < 0 ? -ddx : ddx) > bound || (ddy < 0 ? -ddy : ddy) > bound;
}

// The pinhole and rotation the depth normal needs.
struct NcCamera {
  Mat3d R;  // world -> camera
  double fx, fy, cx, cy;
};

// Camera-space ray through the centre of pixel (x, y), with z = 1.
GLINT_HD inline Vec3d nc_pixel_ray(const NcCamera& c, int x, int y) {
  return {(x + 0.5 - c.cx) / c.fx, (y + 0.5 - c.cy) / c.fy, 1.0};
}

// One interior pixel's 1 - <n_rendered, n_depth> and its gradients, unscaled: g_N
// (dL/d(rendered normal)) and g_depth of the depths of its right, left, lower and upper
// neighbours (x + 1, x - 1, y + 1, y - 1). False (and nothing written) where either normal
// is degenerate: the pixel then adds nothing.
struct NcPixel {
  double term;
  Vec3d g_N;
  double g_depth[4];
};
GLINT_HD inline bool normal_consistency_pixel(const NcCamera& cam, int x, int y, double z_right, double z_left,
                                              double z_down, double z_up, Vec3d N, NcPixel& out) {
  const Vec3d rl = nc_pixel_ray(cam, x - 1, y), rr = nc_pixel_ray(cam, x + 1, y);
  const Vec3d ru = nc_pixel_ray(cam, x, y - 1), rd = nc_pixel_ray(cam, x, y + 1);
  const Vec3d dx = z_right * rr - z_left * rl;
  const Vec3d dy = z_down * rd - z_up * ru;
  const Vec3d c = cross(dx, dy);
  const double cl = norm(c);
  const double nl = norm(N);
  if (cl < 1e-20 || nl < 1e-12) return false;
  const Vec3d nd_cam = (-1.0 / cl) * c;  // facing the camera (which looks along +z)
  const Vec3d nd = transpose(cam.R) * nd_cam;
  const Vec3d nr = (1.0 / nl) * N;
  out.term = 1.0 - dot(nr, nd);
  // d(1 - nr.nd): w.r.t. N through the normalisation ...
  const Vec3d g_nr = -nd;
  out.g_N = (1.0 / nl) * (g_nr - dot(g_nr, nr) * nr);
  // ... and w.r.t. the depth normal, back through the rotation, normalisation, cross
  // product and the back-projection of the four neighbours.
  const Vec3d g_nd_cam = cam.R * (-nr);
  const Vec3d chat = (1.0 / cl) * c;
  const Vec3d g_c = (-1.0 / cl) * (g_nd_cam - dot(g_nd_cam, chat) * chat);
  const Vec3d g_dx = cross(dy, g_c), g_dy = cross(g_c, dx);
  out.g_depth[0] = dot(g_dx, rr);
  out.g_depth[1] = -dot(g_dx, rl);
  out.g_depth[2] = dot(g_dy, rd);
  out.g_depth[3] = -dot(g_dy, ru);
  return true;
}

}  // namespace glint
