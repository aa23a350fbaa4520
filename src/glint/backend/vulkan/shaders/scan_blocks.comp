#version 450
#extension GL_GOOGLE_include_directive : require
// Exclusive prefix sum, first level: each group of 256 threads scans 1024 values in place
// (4 a thread, then the threads' totals in shared memory) and writes the block's total to
// sums[block]. Integer sums: exact, whatever the device's subgroup size.
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { CountPush p; };
layout(std430, binding = 0) buffer Data { uint data[]; };
layout(std430, binding = 1) writeonly buffer Sums { uint sums[]; };
shared uint part[256];

void main() {
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint t = gl_LocalInvocationID.x;
  uint base = block * 1024u + t * 4u;
  uint v[4];
  uint total = 0u;
  for (uint k = 0u; k < 4u; ++k) {
    uint x = base + k < p.count ? data[base + k] : 0u;
    v[k] = total;
    total += x;
  }
  part[t] = total;
  barrier();
  for (uint off = 1u; off < 256u; off <<= 1) {
    uint add = t >= off ? part[t - off] : 0u;
    barrier();
    part[t] += add;
    barrier();
  }
  uint before = part[t] - total;
  for (uint k = 0u; k < 4u; ++k)
    if (base + k < p.count) data[base + k] = before + v[k];
  if (t == 255u && block * 1024u < p.count) sums[block] = part[255];
}
