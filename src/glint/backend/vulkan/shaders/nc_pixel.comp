#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Normal consistency (train/geometry_loss.cpp), one thread a pixel, before its scale is
// known: whether the pixel takes part (valid, 1 or 0, summed by block_sum into the mean's
// divisor), its term (0 on a depth edge or where a normal is degenerate; summed by block_sum),
// its unscaled dL/d(normal), and its unscaled depth gradients for its right, left, lower and
// upper neighbours in contrib[4p .. 4p+3]. nc_gather.comp scales them and gathers each
// pixel's depth gradient from its neighbours' slots: no thread writes another's pixel.
layout(local_size_x = 256) in;
#include "common.glsl"
#include "geometry_math.glsl"
layout(push_constant) uniform PushBlock { NcPush p; };
layout(std430, binding = 0) readonly buffer Normal { float normal[]; };
layout(std430, binding = 1) readonly buffer Depth { float depth[]; };
layout(std430, binding = 2) readonly buffer Alpha { float alpha[]; };
layout(std430, binding = 3) writeonly buffer Valid { float valid[]; };
layout(std430, binding = 4) writeonly buffer Terms { float terms[]; };
layout(std430, binding = 5) writeonly buffer DNormal { float d_normal[]; };
layout(std430, binding = 6) writeonly buffer Contrib { float contrib[]; };

bool ok_at(uint i) { return normal_consistency_ok(alpha[i], depth[i], p.alpha_threshold); }

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  uint w = uint(p.width);
  int x = int(i % w), y = int(i / w);
  bool taking_part = x > 0 && y > 0 && x < p.width - 1 && y < p.height - 1 && ok_at(i) && ok_at(i - 1u) &&
                     ok_at(i + 1u) && ok_at(i - w) && ok_at(i + w);
  valid[i] = taking_part ? 1.0 : 0.0;
  NcPixel px;
  px.term = 0.0;
  px.g_N = vec3(0.0);
  px.g_depth = float[4](0.0, 0.0, 0.0, 0.0);
  if (taking_part &&
      !normal_consistency_edge(depth[i], depth[i + 1u], depth[i - 1u], depth[i + w], depth[i - w], p.edge_eps)) {
    NcCam cam;
    cam.R = p.R;
    cam.fx = p.fx;
    cam.fy = p.fy;
    cam.cx = p.cx;
    cam.cy = p.cy;
    vec3 N = vec3(normal[3u * i], normal[3u * i + 1u], normal[3u * i + 2u]);
    normal_consistency_pixel(cam, x, y, depth[i + 1u], depth[i - 1u], depth[i + w], depth[i - w], N, px);
  }
  terms[i] = px.term;
  d_normal[3u * i] = px.g_N.x;
  d_normal[3u * i + 1u] = px.g_N.y;
  d_normal[3u * i + 2u] = px.g_N.z;
  [[unroll]] for (uint k = 0u; k < 4u; ++k) contrib[4u * i + k] = px.g_depth[k];
}
