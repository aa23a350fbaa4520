#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The per-splat bookkeeping of a training step, one thread a splat, with train/'s formulas
// (exact family: every result `precise`): which splats the render drew (visible, 1 or 0,
// summed by block_sum), ADC's densification statistics (train/densify.cpp), the flattening
// regulariser (train/geometry_loss.cpp flatten_loss) and MCMC's opacity and scale terms
// (train/mcmc.cpp mcmc_regularizer), each adding its gradient in place and writing its
// per-splat term for block_sum. The push constants' `slot` picks which.

layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { SplatStepPush p; };
layout(std430, binding = 0) readonly buffer Radii { int radii[]; };
layout(std430, binding = 1) readonly buffer Mean2d { float mean2d[]; };
layout(std430, binding = 2) readonly buffer LogScales { float log_scales[]; };
layout(std430, binding = 3) readonly buffer Opacity { float opacity[]; };
layout(std430, binding = 4) buffer Visible { float visible[]; };
layout(std430, binding = 5) buffer GradAccum { float grad_accum[]; };
layout(std430, binding = 6) buffer GradCount { float grad_count[]; };
layout(std430, binding = 7) buffer MaxRadii { float max_radii[]; };
layout(std430, binding = 8) buffer DLogScales { float d_log_scales[]; };
layout(std430, binding = 9) buffer DOpacity { float d_opacity[]; };
layout(std430, binding = 10) writeonly buffer Terms { float terms[]; };
layout(std430, binding = 11) writeonly buffer Terms2 { float terms2[]; };

const uint kVisibility = 0u, kDensifyStats = 1u, kFlatten = 2u, kMcmc = 3u;

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  uint mode = p.slot;
  if (mode == kVisibility) {
    visible[i] = radii[i] > 0 ? 1.0 : 0.0;
  } else if (mode == kDensifyStats) {
    float r = float(radii[i]);
    if (!(r > 0.0)) return;
    precise float gx = mean2d[2u * i] * p.sx, gy = mean2d[2u * i + 1u] * p.sy;
    precise float norm = sqrt(gx * gx + gy * gy);
    precise float acc = grad_accum[i] + norm;
    grad_accum[i] = acc;
    precise float cnt = grad_count[i] + 1.0;
    grad_count[i] = cnt;
    max_radii[i] = max(max_radii[i], r);
  } else if (mode == kFlatten) {
    float s0 = log_scales[3u * i], s1 = log_scales[3u * i + 1u], s2 = log_scales[3u * i + 2u];
    uint k = 0u;
    float sk = s0;
    if (s1 < sk) { k = 1u; sk = s1; }
    if (s2 < sk) { k = 2u; sk = s2; }
    float v = exp(sk);
    terms[i] = v;
    precise float g = d_log_scales[3u * i + k] + p.scale * v;
    d_log_scales[3u * i + k] = g;
  } else if (mode == kMcmc) {
    float s = 1.0 / (1.0 + exp(-opacity[i]));
    terms[i] = s;
    precise float go = d_opacity[i] + p.scale * s * (1.0 - s);
    d_opacity[i] = go;
    float sum = 0.0;
    for (uint a = 0u; a < 3u; ++a) {
      float e = exp(log_scales[3u * i + a]);
      sum += e;
      precise float gs = d_log_scales[3u * i + a] + p.scale2 * e;
      d_log_scales[3u * i + a] = gs;
    }
    terms2[i] = sum;
  }
}
