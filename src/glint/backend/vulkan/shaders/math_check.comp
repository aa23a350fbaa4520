#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Tests only (tests/vulkan_math_test.cpp): runs one function of render_math.glsl (or
// train_math.glsl, geometry_math.glsl) on `count`
// inputs of in_stride floats and writes its results, out_stride floats a case, so that each
// GLSL copy is compared with its render/ original on randomized inputs. The layouts of
// inputs and outputs per function are listed in the test.
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 64) in;
#include "common.glsl"
#include "train_math.glsl"
#include "geometry_math.glsl"
layout(push_constant) uniform PushBlock { MathCheckPush p; };
layout(std430, binding = 0) readonly buffer Inputs { float inputs[]; };
layout(std430, binding = 1) writeonly buffer Outputs { float outputs[]; };

uint ib, ob;
float I(uint k) { return inputs[ib + k]; }
void O(uint k, float v) { outputs[ob + k] = v; }

ViewParams view_at(uint k) {  // 26 floats: R, t, campos, fx, fy, cx, cy, limits, near, width, height
  ViewParams v;
  for (uint j = 0u; j < 9u; ++j) v.R[j] = I(k + j);
  for (uint j = 0u; j < 3u; ++j) v.t[j] = I(k + 9u + j);
  for (uint j = 0u; j < 3u; ++j) v.campos[j] = I(k + 12u + j);
  v.fx = I(k + 15u);
  v.fy = I(k + 16u);
  v.cx = I(k + 17u);
  v.cy = I(k + 18u);
  v.lim_x_neg = I(k + 19u);
  v.lim_x_pos = I(k + 20u);
  v.lim_y_neg = I(k + 21u);
  v.lim_y_pos = I(k + 22u);
  v.near_plane = I(k + 23u);
  v.width = int(I(k + 24u));
  v.height = int(I(k + 25u));
  return v;
}
vec3 v3(uint k) { return vec3(I(k), I(k + 1u), I(k + 2u)); }
Quat q4(uint k) { return Quat(I(k), I(k + 1u), I(k + 2u), I(k + 3u)); }

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  ib = i * p.in_stride;
  ob = i * p.out_stride;
  if (p.function == 0u) {  // project_splat: view, mean, log_scale, quat, opacity logit, antialiased
    Projected pr;
    bool keep = project_splat(view_at(0u), v3(26u), v3(29u), q4(32u), I(36u), I(37u) != 0.0, pr);
    O(0u, keep ? 1.0 : 0.0);
    O(1u, pr.mx);
    O(2u, pr.my);
    for (uint k = 0u; k < 3u; ++k) O(3u + k, pr.conic[k]);
    for (uint k = 0u; k < 3u; ++k) O(6u + k, pr.cov[k]);
    O(9u, pr.depth);
    O(10u, pr.opacity);
    O(11u, pr.power_cut);
    O(12u, pr.ext_x);
    O(13u, pr.ext_y);
  } else if (p.function == 1u) {  // sh_color: degree, direction, dc[3], rest[45]
    float dc[3], rest[45];
    for (uint k = 0u; k < 3u; ++k) dc[k] = I(4u + k);
    for (uint k = 0u; k < 45u; ++k) rest[k] = I(7u + k);
    uint clamped;
    vec3 c = sh_color(int(I(0u)), v3(1u), dc, rest, clamped);
    O(0u, c.x);
    O(1u, c.y);
    O(2u, c.z);
    O(3u, float(clamped));
  } else if (p.function == 2u) {  // sh_color_vjp: degree, mean, campos, dc[3], rest[45], d_color
    float dc[3], rest[45], campos[3];
    for (uint k = 0u; k < 3u; ++k) campos[k] = I(4u + k);
    for (uint k = 0u; k < 3u; ++k) dc[k] = I(7u + k);
    for (uint k = 0u; k < 45u; ++k) rest[k] = I(10u + k);
    float d_dc[3], d_rest[45];
    vec3 d_mean = vec3(0.0);
    sh_color_vjp(int(I(0u)), v3(1u), campos, dc, rest, v3(55u), d_dc, d_rest, d_mean);
    for (uint k = 0u; k < 3u; ++k) O(k, d_dc[k]);
    for (uint k = 0u; k < 45u; ++k) O(3u + k, d_rest[k]);
    O(48u, d_mean.x);
    O(49u, d_mean.y);
    O(50u, d_mean.z);
  } else if (p.function == 3u) {  // project_splat_vjp: view, mean, log_scale, quat, logit, aa, grad[10]
    ProjectedGrad g;
    g.mean2d = float[2](I(38u), I(39u));
    g.conic = float[3](I(40u), I(41u), I(42u));
    g.opacity = I(43u);
    g.depth = I(44u);
    g.normal = float[3](I(45u), I(46u), I(47u));
    SplatGeomGrad o = project_splat_vjp(view_at(0u), v3(26u), v3(29u), q4(32u), I(36u), I(37u) != 0.0, g);
    O(0u, o.mean.x);
    O(1u, o.mean.y);
    O(2u, o.mean.z);
    O(3u, o.log_scale.x);
    O(4u, o.log_scale.y);
    O(5u, o.log_scale.z);
    O(6u, o.quat.w);
    O(7u, o.quat.x);
    O(8u, o.quat.y);
    O(9u, o.quat.z);
    O(10u, o.opacity_logit);
  } else if (p.function == 4u) {  // splat_normal: view, mean, log_scale, quat
    vec3 n = splat_normal(view_at(0u), v3(26u), v3(29u), q4(32u));
    O(0u, n.x);
    O(1u, n.y);
    O(2u, n.z);
  } else if (p.function == 5u) {  // the blend step's functions
    O(0u, fast_exp(I(0u)));
    O(1u, splat_power(I(1u), I(2u), I(3u), I(4u), I(5u)));
    float G;
    bool clamped;
    float a = blend_alpha(I(6u), I(1u), I(7u), G, clamped);
    O(2u, a);
    O(3u, G);
    O(4u, clamped ? 1.0 : 0.0);
    O(5u, blend_dalpha_channel(I(8u), I(9u), I(10u), I(11u)));
    AlphaMoments m = AlphaMoments(I(14u), I(15u), I(16u), I(17u), I(18u), I(19u));
    blend_alpha_moments_add(I(12u), I(13u), I(4u), I(5u), m);
    O(6u, m.p);
    O(7u, m.px);
    O(8u, m.py);
    O(9u, m.pxx);
    O(10u, m.pxy);
    O(11u, m.pyy);
    float d0, d1, d2, d3, d4, d5;
    blend_alpha_moments_grad(m, I(6u), I(1u), I(2u), I(3u), d0, d1, d2, d3, d4, d5);
    O(12u, d0);
    O(13u, d1);
    O(14u, d2);
    O(15u, d3);
    O(16u, d4);
    O(17u, d5);
    O(18u, distortion_half_step(I(20u), I(21u), I(22u), I(23u)));
    O(19u, distortion_dw(I(21u), I(22u), I(23u), I(24u), I(25u)));
    O(20u, distortion_dz(I(20u), I(22u), I(24u)));
  } else if (p.function == 6u) {  // tiles: mx, my, A, B, C, power_cut, ext_x, ext_y, width, height, rect[4]
    ProjectedSplat s;
    s.mx = I(0u);
    s.my = I(1u);
    s.conic = float[3](I(2u), I(3u), I(4u));
    s.power_cut = I(5u);
    s.ext_x = I(6u);
    s.ext_y = I(7u);
    int w = int(I(8u)), h = int(I(9u));
    ivec4 r = splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, w, h);
    O(0u, float(r.x));
    O(1u, float(r.y));
    O(2u, float(r.z));
    O(3u, float(r.w));
    O(4u, float(count_hit_tiles(s, w, h)));
    RectTestPrep prep = rect_test_prep(I(2u), I(3u), I(4u), I(5u));
    O(5u, ellipse_hits_rect(prep, s.mx, s.my, I(10u), I(11u), I(12u), I(13u)) ? 1.0 : 0.0);
  } else if (p.function == 7u) {  // quat_to_rotmat_vjp: quat, G[9]
    float G[9];
    for (uint k = 0u; k < 9u; ++k) G[k] = I(4u + k);
    Quat g = quat_to_rotmat_vjp(q4(0u), G);
    O(0u, g.w);
    O(1u, g.x);
    O(2u, g.y);
    O(3u, g.z);
  } else if (p.function == 8u) {  // train_math.glsl: window[11], x[11], moments[5], grad in[6], adam[11], d
    float w[11], x[11];
    for (uint k = 0u; k < 11u; ++k) {
      w[k] = I(k);
      x[k] = I(11u + k);
    }
    O(0u, ssim_window_sum(w, x));
    float dm, d11, d12;
    O(1u, ssim_map_value(I(22u), I(23u), I(24u), I(25u), I(26u), 1e-4, 9e-4, dm, d11, d12));
    O(2u, dm);
    O(3u, d11);
    O(4u, d12);
    O(5u, ssim_grad_value(I(27u), I(28u), I(29u), I(30u), I(31u), I(32u)));
    float pp = I(33u), m = I(35u), v = I(36u);
    bool bad = adam_value(pp, I(34u), m, v, I(37u), I(38u), I(39u), I(40u), I(41u), I(42u), I(43u));
    O(6u, pp);
    O(7u, m);
    O(8u, v);
    O(9u, bad ? 1.0 : 0.0);
    O(10u, l1_sign(I(44u)));
  } else if (p.function == 9u) {  // geometry_math.glsl: R[9], fx, fy, cx, cy, x, y, z, z_r, z_l, z_d, z_u,
                                  // N[3], eps, alpha, alpha threshold
    NcCam cam;
    for (uint k = 0u; k < 9u; ++k) cam.R[k] = I(k);
    cam.fx = I(9u);
    cam.fy = I(10u);
    cam.cx = I(11u);
    cam.cy = I(12u);
    O(0u, normal_consistency_ok(I(24u), I(15u), I(25u)) ? 1.0 : 0.0);
    O(1u, normal_consistency_edge(I(15u), I(16u), I(17u), I(18u), I(19u), I(23u)) ? 1.0 : 0.0);
    NcPixel px;
    bool kept = normal_consistency_pixel(cam, int(I(13u)), int(I(14u)), I(16u), I(17u), I(18u), I(19u), v3(20u), px);
    O(2u, kept ? 1.0 : 0.0);
    O(3u, px.term);
    O(4u, px.g_N.x);
    O(5u, px.g_N.y);
    O(6u, px.g_N.z);
    for (uint k = 0u; k < 4u; ++k) O(7u + k, px.g_depth[k]);
  }
}
