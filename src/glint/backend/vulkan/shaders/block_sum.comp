#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Fixed-order sums without atomics: block k covers values [4096 k, 4096 (k + 1)); thread t
// adds values 4096 k + t + 256 j, j < 16, in order, and the block's threads are combined
// by a fixed tree into partial[k]. The host adds the partials in double, in order. The same
// dispatch gives the same bits every run, whatever the subgroup size.
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { SumPush p; };
layout(std430, binding = 0) readonly buffer Values { float values[]; };
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };

shared float part[256];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint k = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (k * 4096u >= p.count) return;  // a group past the values (a wrapped grid)
  uint base = k * 4096u + t;
  float s = 0.0;
  [[unroll]] for (uint j = 0u; j < 16u; ++j) {
    uint at = base + 256u * j;
    if (at < p.count) s += values[at];
  }
  part[t] = s;
  barrier();
  [[unroll]] for (uint half_ = 128u; half_ > 0u; half_ >>= 1u) {
    if (t < half_) part[t] += part[t + half_];
    barrier();
  }
  if (t == 0u) partials[k] = part[0];
}
