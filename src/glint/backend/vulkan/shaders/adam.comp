#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Adam over one parameter group, one thread a value (train/adam_value.h's update, every
// result `precise`: exact family). Rows hidden by the visibility mask (selective Adam) and
// the columns at or past used_width are left as they are, as on the CPU; status[group] = 1
// when an updated value is left non-finite.
layout(local_size_x = 256) in;
#include "common.glsl"
#include "train_math.glsl"
layout(push_constant) uniform PushBlock { AdamPush p; };
layout(std430, binding = 0) buffer Params { float params[]; };
layout(std430, binding = 1) readonly buffer Grads { float grads[]; };
layout(std430, binding = 2) buffer M { float m[]; };
layout(std430, binding = 3) buffer V { float v[]; };
layout(std430, binding = 4) readonly buffer Visible { float visible[]; };
layout(std430, binding = 5) writeonly buffer Status { uint status[]; };

void main() {
  uint j = linear_index();
  if (j >= p.count) return;
  uint row = j / p.width, col = j % p.width;
  if (col >= p.used_width || (p.selective != 0u && visible[row] == 0.0)) return;
  float pj = params[j], mj = m[j], vj = v[j];
  bool bad = adam_value(pj, grads[j], mj, vj, p.b1, p.a1, p.b2, p.a2, p.bc2_sqrt, p.eps, p.step_size);
  params[j] = pj;
  m[j] = mj;
  v[j] = vj;
  if (bad) status[p.group] = 1u;
}
