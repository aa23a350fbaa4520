#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The gradient of (1 - lambda) L1 + lambda D-SSIM w.r.t. the render (the CUDA
// ssim_backward_tile_kernel): the three derivative planes blurred (the blur is its own
// transpose) over a 16x16 tile staged with its halo, then the L1 term folded in; weighted
// (masks) the result is multiplied by its pixel's weight.
layout(local_size_x = 256) in;
#include "common.glsl"
#include "train_math.glsl"
layout(push_constant) uniform PushBlock { LossPush p; };
layout(std430, binding = 0) readonly buffer Derivs { float derivs[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(std430, binding = 3) writeonly buffer Grad { float grad[]; };
layout(std430, binding = 4) readonly buffer Weight { float weight[]; };

const int kTile = 16;
const int kSpan = 26;
shared float staged[3][kSpan][kSpan];
shared float hx[3][kSpan][kTile];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  int x0 = int(tile % p.tiles_x) * kTile, y0 = int(tile / p.tiles_x) * kTile;
  int tx = int(t) % kTile, ty = int(t) / kTile;
  int x = x0 + tx, y = y0 + ty;
  bool inside = x < p.width && y < p.height;
  float w[11] = p.window;
  for (int ch = 0; ch < p.channels; ++ch) {
    for (uint k = t; k < uint(kSpan * kSpan); k += 256u) {
      int r = int(k) / kSpan, q = int(k) % kSpan;
      int sx = x0 + q - kSsimRadius, sy = y0 + r - kSsimRadius;
      bool in_image = sx >= 0 && sx < p.width && sy >= 0 && sy < p.height;
      uint at = in_image ? (uint(sy) * uint(p.width) + uint(sx)) * uint(p.channels) + uint(ch) : 0u;
      [[unroll]] for (uint pl = 0u; pl < 3u; ++pl) staged[pl][r][q] = in_image ? derivs[pl * p.count + at] : 0.0;
    }
    barrier();
    for (uint k = t; k < uint(kSpan * kTile); k += 256u) {
      int r = int(k) / kTile, q = int(k) % kTile;
      [[unroll]] for (int pl = 0; pl < 3; ++pl) {
        float v[11];
        [[unroll]] for (int j = 0; j < 11; ++j) v[j] = staged[pl][r][q + j];
        hx[pl][r][q] = ssim_window_sum(w, v);
      }
    }
    barrier();
    if (inside) {
      float m[3];
      [[unroll]] for (int pl = 0; pl < 3; ++pl) {
        float v[11];
        [[unroll]] for (int j = 0; j < 11; ++j) v[j] = hx[pl][ty + j][tx];
        m[pl] = ssim_window_sum(w, v);
      }
      uint i = (uint(y) * uint(p.width) + uint(x)) * uint(p.channels) + uint(ch);
      float g = ssim_grad_value(p.inv_count, m[0], m[1], m[2], a[i], b[i]);
      float gi = p.l1_scale * l1_sign(a[i] - b[i]) - p.lambda * g;
      grad[i] = p.weighted != 0u ? gi * weight[i / uint(p.channels)] : gi;
    }
    barrier();
  }
}
