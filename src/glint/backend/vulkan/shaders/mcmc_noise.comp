#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// 3DGS-MCMC's position noise (train/mcmc.cpp mcmc_add_noise), one thread a splat: means +=
// gate(opacity) * scale * R S^2 R^T z. z are the three standard normals the CPU session's
// per-splat stream draws, drawn on the host (the CPU's bits: Box-Muller's log and cos in
// double, which Vulkan does not guarantee) and uploaded. Exact family: each operation the
// CPU's, in its order; exp, the division and the rotation's rsqrt are the driver's.
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { NoisePush p; };
layout(std430, binding = 0) readonly buffer LogScales { float log_scales[]; };
layout(std430, binding = 1) readonly buffer Quats { float quats[]; };
layout(std430, binding = 2) readonly buffer Opacity { float opacity[]; };
layout(std430, binding = 3) readonly buffer Normals { float normals[]; };
layout(std430, binding = 4) buffer Means { float means[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  precise float op = sigmoid(opacity[i]);
  precise float gate = 1.0 / (1.0 + exp(-p.k * ((1.0 - op) - p.t)));
  vec3 z = vec3(normals[3u * i], normals[3u * i + 1u], normals[3u * i + 2u]);
  float R[9];
  quat_to_rotmat(Quat(quats[4u * i], quats[4u * i + 1u], quats[4u * i + 2u], quats[4u * i + 3u]), R);
  precise vec3 s = vec3(exp(log_scales[3u * i]), exp(log_scales[3u * i + 1u]), exp(log_scales[3u * i + 2u]));
  // R^T z, then S^2 times it, then R times that
  precise vec3 rz = vec3(R[0] * z.x + R[3] * z.y + R[6] * z.z, R[1] * z.x + R[4] * z.y + R[7] * z.z,
                         R[2] * z.x + R[5] * z.y + R[8] * z.z);
  precise vec3 t = (s * s) * rz;
  precise vec3 cz = vec3(R[0] * t.x + R[1] * t.y + R[2] * t.z, R[3] * t.x + R[4] * t.y + R[5] * t.z,
                         R[6] * t.x + R[7] * t.y + R[8] * t.z);
  precise float g = gate * p.scale;
  [[unroll]] for (uint k = 0u; k < 3u; ++k) {
    precise float v = means[3u * i + k] + g * cz[k];
    means[3u * i + k] = v;
  }
}
