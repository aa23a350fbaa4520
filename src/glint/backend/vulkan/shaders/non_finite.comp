#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The finiteness check: status[slot] = 1 when a value is inf or NaN (an all-ones exponent).
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { SplatStepPush p; };
layout(std430, binding = 0) readonly buffer Values { float values[]; };
layout(std430, binding = 1) writeonly buffer Status { uint status[]; };

void main() {
  uint j = linear_index();
  if (j >= p.count) return;
  if ((floatBitsToUint(values[j]) & 0x7f800000u) == 0x7f800000u) status[p.slot] = 1u;
}
