#version 450
#extension GL_GOOGLE_include_directive : require
// The blend stage: one group a 16x16 tile, one thread a pixel. The tile's splats are staged
// in shared memory 256 at a time and every thread walks them front to back with the blend
// step of render/blend.h: a step below 1/255 or outside the cut is skipped, a step that
// would leave less than 1e-4 transmittance ends the pixel unblended. Writes the colour over
// the background, the alpha, the final transmittance and the end of each pixel's blended
// steps (for the backward), and the optional outputs p.flags asks for (the CUDA blend
// kernel's, step for step).
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { BlendPush p; };
layout(std430, binding = 0) readonly buffer Splats { ProjectedSplat splats[]; };
layout(std430, binding = 1) readonly buffer SortedSplat { uint sorted_splat[]; };
layout(std430, binding = 2) readonly buffer Ranges { uint ranges[]; };
layout(std430, binding = 3) writeonly buffer Rgb { float rgb[]; };
layout(std430, binding = 4) writeonly buffer Alpha { float alpha[]; };
layout(std430, binding = 5) writeonly buffer TFinal { float t_final[]; };
layout(std430, binding = 6) writeonly buffer Last { uint last[]; };
layout(std430, binding = 7) writeonly buffer Depth { float depth_out[]; };
layout(std430, binding = 8) writeonly buffer DepthSum { float depth_sum[]; };
layout(std430, binding = 9) writeonly buffer Median { float median_out[]; };
layout(std430, binding = 10) writeonly buffer MedianAt { uint median_at[]; };
layout(std430, binding = 11) writeonly buffer Normal { float normal_out[]; };
layout(std430, binding = 12) writeonly buffer Distortion { float distortion_out[]; };
layout(std430, binding = 13) writeonly buffer DistR { float dist_r[]; };
layout(std430, binding = 14) writeonly buffer DistZ0 { float dist_z0[]; };
layout(std430, binding = 15) writeonly buffer Count { float count_out[]; };

struct Staged {
  float mx, my, A, B, C, opacity, power_cut, depth;
  float rgb[3];
  float normal[3];
};
shared Staged batch[256];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.y * uint(p.tiles_x) + gl_WorkGroupID.x;
  int x = int(gl_WorkGroupID.x) * kTileSize + int(t % 16u);
  int y = int(gl_WorkGroupID.y) * kTileSize + int(t / 16u);
  bool inside = x < p.width && y < p.height;
  float fx = float(x) + 0.5, fy = float(y) + 0.5;
  uint begin = ranges[2u * tile], end = ranges[2u * tile + 1u];
  uint flags = p.flags;
  float T = 1.0;
  float C[3] = float[3](0.0, 0.0, 0.0);
  float S = 0.0, med = 0.0, cnt = 0.0, Dh = 0.0, R = 0.0, Z0 = 0.0;
  float N[3] = float[3](0.0, 0.0, 0.0);
  uint med_at = GLINT_NO_MEDIAN;
  uint end_blended = begin;
  bool done = !inside;
  for (uint base = begin; base < end; base += 256u) {
    barrier();  // the previous batch is no longer read
    if (base + t < end) {
      ProjectedSplat s = splats[sorted_splat[base + t]];
      batch[t] = Staged(s.mx, s.my, s.conic[0], s.conic[1], s.conic[2], s.opacity, s.power_cut, s.depth, s.rgb,
                        s.normal);
    }
    barrier();
    uint count = min(end - base, 256u);
    for (uint j = 0u; j < count && !done; ++j) {
      float power = splat_power(batch[j].A, batch[j].B, batch[j].C, fx - batch[j].mx, fy - batch[j].my);
      float G;
      bool clamped;
      float a = blend_alpha(batch[j].opacity, power, batch[j].power_cut, G, clamped);
      if (a == 0.0) continue;
      precise float tn = T * (1.0 - a);
      if (tn < kTransmittanceStop) {
        done = true;
        break;
      }
      precise float w = a * T;
      for (int c = 0; c < 3; ++c) C[c] += w * batch[j].rgb[c];
      if (flags != 0u) {
        float z = batch[j].depth;
        if ((flags & GLINT_AOV_DEPTH) != 0u) S += w * z;
        if ((flags & GLINT_AOV_DISTORTION) != 0u) {
          if (T == 1.0) Z0 = z;  // the first blended step
          float zr = z - Z0;
          Dh += distortion_half_step(w, zr, 1.0 - T, R);
          R += w * zr;
        }
        if ((flags & GLINT_AOV_NORMAL) != 0u)
          for (int c = 0; c < 3; ++c) N[c] += w * batch[j].normal[c];
        if ((flags & GLINT_AOV_COUNT) != 0u) cnt += 1.0;
        if ((flags & GLINT_AOV_MEDIAN) != 0u && T >= 0.5 && tn < 0.5) {
          med = z;
          med_at = base + j;
          if (p.stop_at_median != 0u) done = true;  // nothing later changes the median
        }
      }
      T = tn;
      end_blended = base + j + 1u;
    }
  }
  if (!inside) return;
  uint pix = uint(y * p.width + x);
  for (int c = 0; c < 3; ++c) rgb[3u * pix + uint(c)] = C[c] + T * p.background[c];
  alpha[pix] = 1.0 - T;
  t_final[pix] = T;
  last[pix] = end_blended;
  if ((flags & GLINT_AOV_DEPTH) != 0u) {
    float al = 1.0 - T;
    depth_sum[pix] = S;
    depth_out[pix] = al > 0.0 ? S / al : 0.0;
  }
  if ((flags & GLINT_AOV_DISTORTION) != 0u) {
    distortion_out[pix] = Dh + Dh;
    dist_r[pix] = R;
    dist_z0[pix] = Z0;
  }
  if ((flags & GLINT_AOV_MEDIAN) != 0u) {
    median_out[pix] = med;
    median_at[pix] = med_at;
  }
  if ((flags & GLINT_AOV_NORMAL) != 0u)
    for (int c = 0; c < 3; ++c) normal_out[3u * pix + uint(c)] = N[c];
  if ((flags & GLINT_AOV_COUNT) != 0u) count_out[pix] = cnt;
}
