#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// dL/d(raw parameters) of every splat of a chunk, from its records (splat-major, in tile
// order): the sums in a fixed order, then render/blend.h's moments gradient, the SH and the
// projection VJPs (the CUDA splat backward kernel).
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 128) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { SplatBackwardPush p; };
layout(std430, binding = 0) readonly buffer Means { float means[]; };
layout(std430, binding = 1) readonly buffer LogScales { float log_scales[]; };
layout(std430, binding = 2) readonly buffer Quats { float quats[]; };
layout(std430, binding = 3) readonly buffer Opacity { float opacity_logits[]; };
layout(std430, binding = 4) readonly buffer ShDc { float sh_dc[]; };
layout(std430, binding = 5) readonly buffer ShRest { float sh_rest[]; };
layout(std430, binding = 6) readonly buffer Splats { ProjectedSplat splats[]; };
layout(std430, binding = 7) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 8) readonly buffer Records { float records[]; };
layout(std430, binding = 9) writeonly buffer GMeans { float g_means[]; };
layout(std430, binding = 10) writeonly buffer GLogScales { float g_log_scales[]; };
layout(std430, binding = 11) writeonly buffer GQuats { float g_quats[]; };
layout(std430, binding = 12) writeonly buffer GOpacity { float g_opacity[]; };
layout(std430, binding = 13) writeonly buffer GShDc { float g_sh_dc[]; };
layout(std430, binding = 14) writeonly buffer GShRest { float g_sh_rest[]; };
layout(std430, binding = 15) writeonly buffer GMean2d { float g_mean2d[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  uint nrec = p.record_floats;
  float sum[13] = float[13](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (uint r = offsets[i]; r < offsets[i + 1u]; ++r)
    [[unroll]] for (uint k = 0u; k < 13u; ++k)  // unrolled: see blend_backward.comp
      if (k < nrec) sum[k] += records[nrec * r + k];
  ProjectedSplat s = splats[i];
  if (s.tiles == 0u) {
    for (uint k = 0u; k < 3u; ++k) g_means[3u * i + k] = g_log_scales[3u * i + k] = g_sh_dc[3u * i + k] = 0.0;
    for (uint k = 0u; k < 4u; ++k) g_quats[4u * i + k] = 0.0;
    for (uint k = 0u; k < 45u; ++k) g_sh_rest[45u * i + k] = 0.0;
    g_opacity[i] = 0.0;
    g_mean2d[2u * i] = g_mean2d[2u * i + 1u] = 0.0;
    return;
  }
  AlphaMoments m = AlphaMoments(sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]);
  ProjectedGrad pg;
  pg.depth = sum[9];
  pg.normal = float[3](sum[10], sum[11], sum[12]);
  blend_alpha_moments_grad(m, s.opacity, s.conic[0], s.conic[1], s.conic[2], pg.opacity, pg.mean2d[0], pg.mean2d[1],
                           pg.conic[0], pg.conic[1], pg.conic[2]);
  vec3 mean = vec3(means[3u * i], means[3u * i + 1u], means[3u * i + 2u]);
  vec3 ls = vec3(log_scales[3u * i], log_scales[3u * i + 1u], log_scales[3u * i + 2u]);
  Quat q = Quat(quats[4u * i], quats[4u * i + 1u], quats[4u * i + 2u], quats[4u * i + 3u]);
  float dc[3];
  float rest[45];
  for (uint k = 0u; k < 3u; ++k) dc[k] = sh_dc[3u * i + k];
  for (uint k = 0u; k < 45u; ++k) rest[k] = sh_rest[45u * i + k];
  vec3 d_mean_sh = vec3(0.0);
  float d_dc[3];
  float d_rest[45];
  sh_color_vjp(p.sh_degree, mean, p.view.campos, dc, rest, vec3(sum[6], sum[7], sum[8]), d_dc, d_rest, d_mean_sh);
  SplatGeomGrad sg = project_splat_vjp(p.view, mean, ls, q, opacity_logits[i], p.antialiased != 0u, pg);
  g_means[3u * i] = sg.mean.x + d_mean_sh.x;
  g_means[3u * i + 1u] = sg.mean.y + d_mean_sh.y;
  g_means[3u * i + 2u] = sg.mean.z + d_mean_sh.z;
  g_log_scales[3u * i] = sg.log_scale.x;
  g_log_scales[3u * i + 1u] = sg.log_scale.y;
  g_log_scales[3u * i + 2u] = sg.log_scale.z;
  g_quats[4u * i] = sg.quat.w;
  g_quats[4u * i + 1u] = sg.quat.x;
  g_quats[4u * i + 2u] = sg.quat.y;
  g_quats[4u * i + 3u] = sg.quat.z;
  g_opacity[i] = sg.opacity_logit;
  for (uint k = 0u; k < 3u; ++k) g_sh_dc[3u * i + k] = d_dc[k];
  for (uint k = 0u; k < 45u; ++k) g_sh_rest[45u * i + k] = d_rest[k];
  g_mean2d[2u * i] = pg.mean2d[0];
  g_mean2d[2u * i + 1u] = pg.mean2d[1];
}
