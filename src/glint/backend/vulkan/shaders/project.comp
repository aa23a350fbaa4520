#version 450
#extension GL_GOOGLE_include_directive : require
// The project stage over a chunk of splats: render/project.h's projection, the tiles its cut
// ellipse reaches, its SH colour and normal for this camera (the CUDA project kernel).
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { ProjectPush p; };
layout(std430, binding = 0) readonly buffer Means { float means[]; };
layout(std430, binding = 1) readonly buffer LogScales { float log_scales[]; };
layout(std430, binding = 2) readonly buffer Quats { float quats[]; };
layout(std430, binding = 3) readonly buffer Opacity { float opacity_logits[]; };
layout(std430, binding = 4) readonly buffer ShDc { float sh_dc[]; };
layout(std430, binding = 5) readonly buffer ShRest { float sh_rest[]; };
layout(std430, binding = 6) writeonly buffer Splats { ProjectedSplat splats[]; };
layout(std430, binding = 7) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 8) writeonly buffer Radii { int radii[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  vec3 mean = vec3(means[3 * i], means[3 * i + 1], means[3 * i + 2]);
  vec3 ls = vec3(log_scales[3 * i], log_scales[3 * i + 1], log_scales[3 * i + 2]);
  Quat q = Quat(quats[4 * i], quats[4 * i + 1], quats[4 * i + 2], quats[4 * i + 3]);
  Projected pr;
  bool keep = project_splat(p.view, mean, ls, q, opacity_logits[i], p.antialiased != 0u, pr);
  ProjectedSplat s;
  s.mx = pr.mx;
  s.my = pr.my;
  s.conic = pr.conic;
  s.depth = pr.depth;
  s.opacity = pr.opacity;
  s.power_cut = pr.power_cut;
  s.ext_x = pr.ext_x;
  s.ext_y = pr.ext_y;
  s.tiles = 0u;
  s.radius = 0;
  s.rgb = float[3](0.0, 0.0, 0.0);
  s.normal = float[3](0.0, 0.0, 0.0);
  s.pad = uint[2](0u, 0u);
  if (keep) {
    s.tiles = count_hit_tiles(s, p.view.width, p.view.height);
    if (s.tiles > 0u) {
      s.radius = int(ceil(min(max(s.ext_x, s.ext_y), 1e9)));
      float dc[3];
      float rest[45];
      for (int k = 0; k < 3; ++k) dc[k] = sh_dc[3 * i + uint(k)];
      for (int k = 0; k < 45; ++k) rest[k] = sh_rest[45 * i + uint(k)];
      uint clamped;
      vec3 c = sh_color(p.sh_degree, view_dir(mean, p.view.campos), dc, rest, clamped);
      s.rgb = float[3](c.x, c.y, c.z);
      vec3 nv = splat_normal(p.view, mean, ls, q);
      s.normal = float[3](nv.x, nv.y, nv.z);
    }
  }
  splats[i] = s;
  counts[i] = s.tiles;
  radii[i] = s.radius;
}
