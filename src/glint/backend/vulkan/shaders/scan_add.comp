#version 450
#extension GL_GOOGLE_include_directive : require
// Exclusive prefix sum, second level: every value gets the sum of the blocks before its own
// (sums scanned in turn).
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { CountPush p; };
layout(std430, binding = 0) buffer Data { uint data[]; };
layout(std430, binding = 1) readonly buffer Sums { uint sums[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  data[i] += sums[i / 1024u];
}
