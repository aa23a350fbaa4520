// GLSL copies of train/normal_consistency_math.h (normal consistency's per-pixel math: which
// pixels take part, the depth-edge test, one pixel's term and gradients), in float: Vulkan
// devices need not have 64-bit floats (SwiftShader and MoltenVK have none), where the C++
// computes in double. Differences of nearly equal depths are therefore formed before they
// are scaled, so that float keeps their digits: the edge test compares z (1/z_r + 1/z_l -
// 2/z) = (z - z_r)/z_r + (z - z_l)/z_l with eps (the C++'s |...| > eps / z times z > 0), and
// the back-projected differences dx, dy are written as (z_r - z_l) u + (z_r + z_l) and so on
// (z_r r(x+1) - z_l r(x-1), expanded). Kept within rounding of the C++ by
// tests/vulkan_math_test.cpp (VulkanMath.NormalConsistencyMatchesTrain) on randomized inputs.
#ifndef GLINT_GEOMETRY_MATH_GLSL
#define GLINT_GEOMETRY_MATH_GLSL

// normal_consistency_ok: covered and in front of the camera.
bool normal_consistency_ok(float alpha, float depth, float alpha_threshold) {
  return alpha > alpha_threshold && depth > 0.0;
}

// normal_consistency_edge: the neighbours at +-1 off the pixel's plane, along x or y. eps <= 0
// never skips; z > 0 (the pixel takes part).
bool normal_consistency_edge(float z, float z_right, float z_left, float z_down, float z_up, float eps) {
  if (!(eps > 0.0)) return false;
  float ddx = (z - z_right) / z_right + (z - z_left) / z_left;
  float ddy = (z - z_down) / z_down + (z - z_up) / z_up;
  return abs(ddx) > eps || abs(ddy) > eps;
}

// NcCamera: the rotation (world -> camera, row-major) and the pinhole.
struct NcCam {
  float R[9];
  float fx, fy, cx, cy;
};

vec3 nc_rotate(NcCam c, vec3 v) {  // R v
  return vec3(c.R[0] * v.x + c.R[1] * v.y + c.R[2] * v.z, c.R[3] * v.x + c.R[4] * v.y + c.R[5] * v.z,
              c.R[6] * v.x + c.R[7] * v.y + c.R[8] * v.z);
}
vec3 nc_rotate_back(NcCam c, vec3 v) {  // R^T v
  return vec3(c.R[0] * v.x + c.R[3] * v.y + c.R[6] * v.z, c.R[1] * v.x + c.R[4] * v.y + c.R[7] * v.z,
              c.R[2] * v.x + c.R[5] * v.y + c.R[8] * v.z);
}

// nc_pixel_ray's numerators: pixel (x, y)'s centre less the principal point.
float nc_u(NcCam c, int x) { return float(x) + 0.5 - c.cx; }
float nc_v(NcCam c, int y) { return float(y) + 0.5 - c.cy; }

// normal_consistency_pixel: one interior pixel's 1 - <n_rendered, n_depth>, dL/dN, and
// dL/d(depth) of its right, left, lower and upper neighbours; false where either normal is
// degenerate.
struct NcPixel {
  float term;
  vec3 g_N;
  float g_depth[4];
};
bool normal_consistency_pixel(NcCam cam, int x, int y, float z_right, float z_left, float z_down, float z_up,
                              vec3 N, out NcPixel o) {
  float u = nc_u(cam, x), v = nc_v(cam, y);
  // the rays through the four neighbours (nc_pixel_ray, z = 1)
  vec3 rr = vec3((u + 1.0) / cam.fx, v / cam.fy, 1.0), rl = vec3((u - 1.0) / cam.fx, v / cam.fy, 1.0);
  vec3 rd = vec3(u / cam.fx, (v + 1.0) / cam.fy, 1.0), ru = vec3(u / cam.fx, (v - 1.0) / cam.fy, 1.0);
  // dx = z_right rr - z_left rl, dy = z_down rd - z_up ru, from the depths' differences
  float sx = z_right - z_left, sy = z_down - z_up;
  vec3 dx = vec3((sx * u + (z_right + z_left)) / cam.fx, sx * v / cam.fy, sx);
  vec3 dy = vec3(sy * u / cam.fx, (sy * v + (z_down + z_up)) / cam.fy, sy);
  vec3 c = cross(dx, dy);
  float cl = length(c);
  float nl = length(N);
  o.term = 0.0;
  o.g_N = vec3(0.0);
  o.g_depth = float[4](0.0, 0.0, 0.0, 0.0);
  if (cl < 1e-20 || nl < 1e-12) return false;
  vec3 nd_cam = (-1.0 / cl) * c;  // facing the camera (which looks along +z)
  vec3 nd = nc_rotate_back(cam, nd_cam);
  vec3 nr = (1.0 / nl) * N;
  o.term = 1.0 - dot(nr, nd);
  vec3 g_nr = -nd;
  o.g_N = (1.0 / nl) * (g_nr - dot(g_nr, nr) * nr);
  vec3 g_nd_cam = nc_rotate(cam, -nr);
  vec3 chat = (1.0 / cl) * c;
  vec3 g_c = (-1.0 / cl) * (g_nd_cam - dot(g_nd_cam, chat) * chat);
  vec3 g_dx = cross(dy, g_c), g_dy = cross(g_c, dx);
  o.g_depth[0] = dot(g_dx, rr);
  o.g_depth[1] = -dot(g_dx, rl);
  o.g_depth[2] = dot(g_dy, rd);
  o.g_depth[3] = -dot(g_dy, ru);
  return true;
}
#endif
