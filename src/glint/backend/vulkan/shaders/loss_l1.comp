#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The L1 term alone (lambda 0): |a - b| and, with the gradient, (1 - lambda) sign(a - b) / count.
// Weighted (masks): a and b are the weighted images and the gradient is weighted once more,
// as train/loss.cpp does.
layout(local_size_x = 256) in;
#include "common.glsl"
#include "train_math.glsl"
layout(push_constant) uniform PushBlock { LossPush p; };
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer Grad { float grad[]; };
layout(std430, binding = 3) writeonly buffer AbsDiff { float abs_diff[]; };
layout(std430, binding = 4) readonly buffer Weight { float weight[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  float d = a[i] - b[i];
  if (p.with_grad != 0u) {
    float g = p.l1_scale * l1_sign(d);
    grad[i] = p.weighted != 0u ? g * weight[i / uint(p.channels)] : g;
  }
  abs_diff[i] = abs(d);
}
