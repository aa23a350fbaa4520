#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The backward of the blend, deterministic without float atomics (the CUDA backward's
// kernel, step for step). Per tile (one group, one thread a pixel) the splats are walked
// back to front from each pixel's last blended step; for every splat the group sums its
// pixels' terms in a fixed order in shared memory (16 rows of 16, then the 16 row sums) and
// writes one record per (tile, splat) instance at the instance's splat-major slot. A record
// holds the alpha moments of render/blend.h (p, px, py, pxx, pxy, pyy), dL/d(colour), and
// with the geometry outputs dL/dz and dL/d(normal).
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { BlendPush p; };
layout(std430, binding = 0) readonly buffer Splats { ProjectedSplat splats[]; };
layout(std430, binding = 1) readonly buffer SortedSplat { uint sorted_splat[]; };
layout(std430, binding = 2) readonly buffer SortedSlot { uint sorted_slot[]; };
layout(std430, binding = 3) readonly buffer Ranges { uint ranges[]; };
layout(std430, binding = 4) readonly buffer TFinal { float t_final[]; };
layout(std430, binding = 5) readonly buffer Last { uint last[]; };
layout(std430, binding = 6) readonly buffer DepthSum { float depth_sum[]; };
layout(std430, binding = 7) readonly buffer MedianAt { uint median_at[]; };
layout(std430, binding = 8) readonly buffer DistR { float dist_r[]; };
layout(std430, binding = 9) readonly buffer DistZ0 { float dist_z0[]; };
layout(std430, binding = 10) readonly buffer DRgb { float d_rgb[]; };
layout(std430, binding = 11) readonly buffer DAlpha { float d_alpha[]; };
layout(std430, binding = 12) readonly buffer DDepth { float d_depth[]; };
layout(std430, binding = 13) readonly buffer DMedian { float d_median[]; };
layout(std430, binding = 14) readonly buffer DNormal { float d_normal[]; };
layout(std430, binding = 15) readonly buffer DDistortion { float d_distortion[]; };
layout(std430, binding = 16) writeonly buffer Records { float records[]; };

const uint kRecordFloats = 13u;
shared float part[256 * 13];
shared float rows[16 * 13];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.y * uint(p.tiles_x) + gl_WorkGroupID.x;
  int x = int(gl_WorkGroupID.x) * kTileSize + int(t % 16u);
  int y = int(gl_WorkGroupID.y) * kTileSize + int(t / 16u);
  bool inside = x < p.width && y < p.height;
  float fx = float(x) + 0.5, fy = float(y) + 0.5;
  uint begin = ranges[2u * tile], end = ranges[2u * tile + 1u];
  uint pix = inside ? uint(y * p.width + x) : 0u;
  uint my_last = inside ? last[pix] : begin;
  uint flags = p.flags;
  bool g_depth = (flags & GLINT_AOV_DEPTH) != 0u && (p.grad_flags & GLINT_GRAD_DEPTH) != 0u;
  bool g_median = (flags & GLINT_AOV_MEDIAN) != 0u && (p.grad_flags & GLINT_GRAD_MEDIAN) != 0u;
  bool g_normal = (flags & GLINT_AOV_NORMAL) != 0u && (p.grad_flags & GLINT_GRAD_NORMAL) != 0u;
  bool g_dist = (flags & GLINT_AOV_DISTORTION) != 0u && (p.grad_flags & GLINT_GRAD_DISTORTION) != 0u;
  uint nrec = p.record_floats;
  float T = inside ? t_final[pix] : 0.0;
  float dC[3] = float[3](0.0, 0.0, 0.0), after[3] = float[3](0.0, 0.0, 0.0);
  float d_alpha_out = 0.0;
  float gS = 0.0, gM = 0.0, gL = 0.0, after_S = 0.0;
  float gN[3] = float[3](0.0, 0.0, 0.0), after_N[3] = float[3](0.0, 0.0, 0.0);
  float R_final = 0.0, Z0 = 0.0, after_R = 0.0, after_PW = 0.0;
  uint med_at = GLINT_NO_MEDIAN;
  if (inside) {
    [[unroll]] for (int c = 0; c < 3; ++c) {
      dC[c] = d_rgb[3u * pix + uint(c)];
      after[c] = T * p.background[c];
    }
    if ((p.grad_flags & GLINT_GRAD_ALPHA) != 0u) d_alpha_out = d_alpha[pix];
    if (g_depth) {
      float al = 1.0 - T, gd = d_depth[pix];
      if (al > 0.0) {
        gS = gd / al;
        d_alpha_out -= gd * (depth_sum[pix] / al) / al;
      }
    }
    if (g_median) {
      gM = d_median[pix];
      med_at = median_at[pix];
    }
    if (g_normal)
      [[unroll]] for (int c = 0; c < 3; ++c) gN[c] = d_normal[3u * pix + uint(c)];
    if (g_dist) {
      gL = d_distortion[pix];
      R_final = dist_r[pix];
      Z0 = dist_z0[pix];
    }
  }
  float T_final = T;
  // The loops inside are unrolled ([[unroll]]): lavapipe stops an invocation after 65535
  // loop iterations in all (its guard against endless loops), which rolled loops of the
  // block sum reached after about 1900 instances of a tile.
  for (uint pp = end; pp > begin; --pp) {
    uint q = pp - 1u;
    float term[13] = float[13](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    if (q < my_last) {
      ProjectedSplat s = splats[sorted_splat[q]];
      float dx = fx - s.mx, dy = fy - s.my;
      float power = splat_power(s.conic[0], s.conic[1], s.conic[2], dx, dy);
      float G;
      bool clamped;
      float a = blend_alpha(s.opacity, power, s.power_cut, G, clamped);
      if (a > 0.0) {
        float inv = 1.0 / (1.0 - a);
        float Tb = T * inv;
        float w = a * Tb;
        float g = d_alpha_out * T_final * inv;
        [[unroll]] for (int c = 0; c < 3; ++c) {
          g += dC[c] * blend_dalpha_channel(s.rgb[c], Tb, after[c], inv);
          after[c] += w * s.rgb[c];
          term[6 + c] = dC[c] * w;
        }
        if (flags != 0u) {
          float z = s.depth;
          float dz = 0.0;
          if (g_depth) {
            g += gS * blend_dalpha_channel(z, Tb, after_S, inv);
            after_S += w * z;
            dz += gS * w;
          }
          if (g_dist) {
            float zr = z - Z0;
            float a_before = 1.0 - Tb, w_after = T - T_final;
            float b_before = R_final - (after_R + w * zr);
            float dw = distortion_dw(zr, a_before, b_before, w_after, after_R);
            g += gL * blend_dalpha_channel(dw, Tb, after_PW, inv);
            after_PW += w * dw;
            after_R += w * zr;
            dz += gL * distortion_dz(w, a_before, w_after);
          }
          if (g_median && q == med_at) dz += gM;
          if (g_normal)
            [[unroll]] for (int c = 0; c < 3; ++c) {
              g += gN[c] * blend_dalpha_channel(s.normal[c], Tb, after_N[c], inv);
              after_N[c] += w * s.normal[c];
              term[10 + c] = gN[c] * w;
            }
          term[9] = dz;
        }
        if (clamped) g = 0.0;  // alpha is the constant 0.99 there
        AlphaMoments m = AlphaMoments(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        blend_alpha_moments_add(g, G, dx, dy, m);
        term[0] = m.p;
        term[1] = m.px;
        term[2] = m.py;
        term[3] = m.pxx;
        term[4] = m.pxy;
        term[5] = m.pyy;
        T = Tb;
      }
    }
    [[unroll]] for (uint k = 0u; k < kRecordFloats; ++k)
      if (k < nrec) part[t * kRecordFloats + k] = term[k];
    barrier();
    if (t < 16u) {
      float acc[13] = float[13](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
      [[unroll]] for (uint r = 0u; r < 16u; ++r)
        [[unroll]] for (uint k = 0u; k < kRecordFloats; ++k)
          if (k < nrec) acc[k] += part[(t * 16u + r) * kRecordFloats + k];
      [[unroll]] for (uint k = 0u; k < kRecordFloats; ++k)
        if (k < nrec) rows[t * kRecordFloats + k] = acc[k];
    }
    barrier();
    if (t == 0u) {
      float acc[13] = float[13](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
      [[unroll]] for (uint r = 0u; r < 16u; ++r)
        [[unroll]] for (uint k = 0u; k < kRecordFloats; ++k)
          if (k < nrec) acc[k] += rows[r * kRecordFloats + k];
      uint slot = sorted_slot[q];
      [[unroll]] for (uint k = 0u; k < kRecordFloats; ++k)
        if (k < nrec) records[nrec * slot + k] = acc[k];
    }
  }
}
