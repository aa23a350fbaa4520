#version 450
#extension GL_GOOGLE_include_directive : require
// One pass of the LSD radix sort of 64-bit keys (two 32-bit words), 4-bit digits: how many
// keys of each digit every block of 4096 holds, written digit-major (hist[digit * blocks +
// block]) so that one exclusive prefix sum of hist gives each block's first place for each
// digit. Each thread counts 16 consecutive keys; no subgroup operations, so the result does
// not depend on the device's subgroup size.
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { CountPush p; };
layout(std430, binding = 0) readonly buffer KeyLo { uint key_lo[]; };
layout(std430, binding = 1) readonly buffer KeyHi { uint key_hi[]; };
layout(std430, binding = 2) writeonly buffer Hist { uint hist[]; };
shared uint counts[16 * 256];

uint digit(uint i) { return (p.shift < 32u ? key_lo[i] >> p.shift : key_hi[i] >> (p.shift - 32u)) & 15u; }

void main() {
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint t = gl_LocalInvocationID.x;
  uint base = block * 4096u + t * 16u;
  uint c[16];
  for (uint d = 0u; d < 16u; ++d) c[d] = 0u;
  for (uint j = 0u; j < 16u; ++j)
    if (base + j < p.count) c[digit(base + j)]++;
  for (uint d = 0u; d < 16u; ++d) counts[d * 256u + t] = c[d];
  barrier();
  if (t < 16u && block < p.blocks) {
    uint sum = 0u;
    for (uint u = 0u; u < 256u; ++u) sum += counts[t * 256u + u];
    hist[t * p.blocks + block] = sum;
  }
}
