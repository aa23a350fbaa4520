#version 450
#extension GL_GOOGLE_include_directive : require
// One pass of the LSD radix sort, scatter: every key (and its value) goes to its block's
// first place for its digit (hist, scanned) plus the number of keys of that digit before it
// in the block. Threads own 16 consecutive keys and write them in order, so the pass is
// stable and the result is the same bits on every device.
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { CountPush p; };
layout(std430, binding = 0) readonly buffer KeyLo { uint key_lo[]; };
layout(std430, binding = 1) readonly buffer KeyHi { uint key_hi[]; };
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 4) writeonly buffer OutLo { uint out_lo[]; };
layout(std430, binding = 5) writeonly buffer OutHi { uint out_hi[]; };
layout(std430, binding = 6) writeonly buffer OutValues { uint out_values[]; };
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
  if (t < 16u) {  // exclusive prefix over the threads, one digit a thread
    uint run = 0u;
    for (uint u = 0u; u < 256u; ++u) {
      uint x = counts[t * 256u + u];
      counts[t * 256u + u] = run;
      run += x;
    }
  }
  barrier();
  if (block >= p.blocks) return;
  uint pos[16];
  for (uint d = 0u; d < 16u; ++d) pos[d] = hist[d * p.blocks + block] + counts[d * 256u + t];
  for (uint j = 0u; j < 16u; ++j) {
    uint i = base + j;
    if (i < p.count) {
      uint d = digit(i);
      uint dst = pos[d]++;
      out_lo[dst] = key_lo[i];
      out_hi[dst] = key_hi[i];
      out_values[dst] = values[i];
    }
  }
}
