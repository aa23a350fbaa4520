#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// SSIM's moment blurs fused over a 16x16 tile of output values (the CUDA
// ssim_forward_tile_kernel): the group stages its tile and a 5-pixel halo of both images,
// blurs along x there (the halo rows too) and along y from that, and writes the SSIM map,
// with the gradient its three derivative planes, and |a - b|. Channels one after another.
// Weighted (masks: a and b the weighted images) the map's values and their derivatives are
// multiplied by their pixel's weight, as train/ssim.cpp does.
// Every blurred value is ssim_window_sum's fixed-order sum over the CPU blur's taps.
layout(local_size_x = 256) in;
#include "common.glsl"
#include "train_math.glsl"
layout(push_constant) uniform PushBlock { LossPush p; };
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer Derivs { float derivs[]; };
layout(std430, binding = 3) writeonly buffer SsimMap { float ssim_map[]; };
layout(std430, binding = 4) writeonly buffer AbsDiff { float abs_diff[]; };
layout(std430, binding = 5) readonly buffer Weight { float weight[]; };

const int kTile = 16;
const int kSpan = 26;  // kTile + 2 kSsimRadius
shared float staged[2][kSpan][kSpan];
shared float hx[5][kSpan][kTile];

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
      staged[0][r][q] = in_image ? a[at] : 0.0;
      staged[1][r][q] = in_image ? b[at] : 0.0;
    }
    barrier();
    for (uint k = t; k < uint(kSpan * kTile); k += 256u) {
      int r = int(k) / kTile, q = int(k) % kTile;
      float xa[11], xb[11], v[11];
      [[unroll]] for (int j = 0; j < 11; ++j) {
        xa[j] = staged[0][r][q + j];
        xb[j] = staged[1][r][q + j];
      }
      hx[0][r][q] = ssim_window_sum(w, xa);
      hx[1][r][q] = ssim_window_sum(w, xb);
      [[unroll]] for (int j = 0; j < 11; ++j) v[j] = xa[j] * xa[j];
      hx[2][r][q] = ssim_window_sum(w, v);
      [[unroll]] for (int j = 0; j < 11; ++j) v[j] = xb[j] * xb[j];
      hx[3][r][q] = ssim_window_sum(w, v);
      [[unroll]] for (int j = 0; j < 11; ++j) v[j] = xa[j] * xb[j];
      hx[4][r][q] = ssim_window_sum(w, v);
    }
    barrier();
    if (inside) {
      float m[5];
      [[unroll]] for (int pl = 0; pl < 5; ++pl) {
        float v[11];
        [[unroll]] for (int j = 0; j < 11; ++j) v[j] = hx[pl][ty + j][tx];
        m[pl] = ssim_window_sum(w, v);
      }
      uint i = (uint(y) * uint(p.width) + uint(x)) * uint(p.channels) + uint(ch);
      float dm, d11, d12;
      float value = ssim_map_value(m[0], m[1], m[2], m[3], m[4], p.c1, p.c2, dm, d11, d12);
      if (p.weighted != 0u) {
        float wt = weight[i / uint(p.channels)];
        value *= wt;
        dm *= wt;
        d11 *= wt;
        d12 *= wt;
      }
      ssim_map[i] = value;
      if (p.with_grad != 0u) {
        derivs[i] = dm;
        derivs[p.count + i] = d11;
        derivs[2u * p.count + i] = d12;
      }
      abs_diff[i] = abs(a[i] - b[i]);
    }
    barrier();  // the next channel overwrites the staged values
  }
}
