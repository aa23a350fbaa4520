#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// A training target: the view's 8-bit image (1 to 4 channels, packed 4 bytes a uint)
// composited over the step's background into [H,W,3] floats, one thread a pixel, with the
// formulas of composite_float_into (io/image_ops.cpp). Exact family: every result precise.
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { TargetPush p; };
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Target { float target[]; };

float byte_at(uint i) { return float((src[i >> 2] >> (8u * (i & 3u))) & 255u); }

void main() {
  uint px = linear_index();
  if (px >= p.count) return;
  uint ch = uint(p.channels);
  uint at = px * ch;
  if (ch == 3u) {
    [[unroll]] for (uint c = 0u; c < 3u; ++c) {
      precise float v = byte_at(at + c) * (1.0 / 255.0);
      target[3u * px + c] = v;
    }
    return;
  }
  bool alpha = ch == 4u || ch == 2u, grey = ch <= 2u;
  precise float a = alpha ? byte_at(at + ch - 1u) * (1.0 / 255.0) : 1.0;
  precise float na = 1.0 - a;
  [[unroll]] for (uint c = 0u; c < 3u; ++c) {
    precise float v = byte_at(at + (grey ? 0u : c)) * (1.0 / 255.0) * a + p.background[c] * na;
    target[3u * px + c] = v;
  }
}
