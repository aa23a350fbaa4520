#version 450
#extension GL_GOOGLE_include_directive : require
// A masked step's weighted render (train/loss.cpp's apply_weights): each value times its
// pixel's weight, one thread a value. Exact family: the CPU's bits.
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { LossPush p; };
layout(std430, binding = 0) readonly buffer Values { float values[]; };
layout(std430, binding = 1) readonly buffer Weight { float weight[]; };
layout(std430, binding = 2) writeonly buffer Weighted { float weighted[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  precise float v = values[i] * weight[i / uint(p.channels)];
  weighted[i] = v;
}
