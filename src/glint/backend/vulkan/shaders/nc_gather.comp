#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Normal consistency's gradients once the pixels taking part are counted: dL/d(normal) scaled
// in place (scale = weight / count), and each pixel's dL/d(depth) gathered from the slots its
// neighbours wrote for it (nc_pixel.comp), each scaled, in the order the CPU's row-major loop
// adds them: the pixel above (its lower slot), left (its right slot), right (its left slot),
// below (its upper slot). A gather, not a scatter: no atomics, the same bits every run. Exact
// family: each product rounded before it is added, as the CPU rounds each to float.
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { NcPush p; };
layout(std430, binding = 0) readonly buffer Contrib { float contrib[]; };
layout(std430, binding = 1) buffer DNormal { float d_normal[]; };
layout(std430, binding = 2) writeonly buffer DDepth { float d_depth[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  uint w = uint(p.width);
  int x = int(i % w), y = int(i / w);
  [[unroll]] for (uint k = 0u; k < 3u; ++k) {
    precise float g = p.scale * d_normal[3u * i + k];
    d_normal[3u * i + k] = g;
  }
  precise float d = 0.0;
  if (y > 0) d += p.scale * contrib[4u * (i - w) + 2u];
  if (x > 0) d += p.scale * contrib[4u * (i - 1u)];
  if (x < p.width - 1) d += p.scale * contrib[4u * (i + 1u) + 1u];
  if (y < p.height - 1) d += p.scale * contrib[4u * (i + w) + 3u];
  d_depth[i] = d;
}
