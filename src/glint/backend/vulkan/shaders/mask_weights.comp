#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// A masked view's loss weights (train/loss.h): weight[p] = mask[p] / 255 from the view's
// 8-bit mask (one channel, packed 4 bytes a uint), and the step's target multiplied by
// them in place, one thread a pixel, with the CPU's formulas (backend/target_view.cpp's
// mask_weights, train/loss.cpp's apply_weights). Exact family: the CPU's bits.
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { TargetPush p; };
layout(std430, binding = 0) readonly buffer Mask { uint mask[]; };
layout(std430, binding = 1) writeonly buffer Weight { float weight[]; };
layout(std430, binding = 2) buffer Target { float target[]; };

void main() {
  uint px = linear_index();
  if (px >= p.count) return;
  precise float w = float((mask[px >> 2] >> (8u * (px & 3u))) & 255u) * (1.0 / 255.0);
  weight[px] = w;
  [[unroll]] for (uint c = 0u; c < 3u; ++c) {
    precise float v = target[3u * px + c] * w;
    target[3u * px + c] = v;
  }
}
