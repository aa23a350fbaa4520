#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// The backward of the blend, deterministic without float atomics (the CUDA backward's
// arithmetic, step for step). Per tile one group of 64 threads, each owning the 4 pixels of
// its column at rows r, r+4, r+8, r+12; the splats are walked back to front from each
// pixel's last blended step, kBatch instances a round: the round's splats are staged in
// shared memory, every thread sums its pixels' terms of each instance in row order, and
// the group sums the 64 partial sums of each (instance, record float) in thread order and
// writes one record per (tile, splat) instance at the instance's splat-major slot. Two
// barriers a round, not two an instance: a workgroup barrier is a switch of every
// invocation group on a CPU driver. A record holds the alpha moments of render/blend.h
// (p, px, py, pxx, pxy, pyy), dL/d(colour), and with the geometry outputs dL/dz and
// dL/d(normal).
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 64) in;
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
// status[0] = 1 when a tile's walk ended before its first instance (a driver that cuts
// long loops: lavapipe stops an invocation after 65535 loop iterations)
layout(std430, binding = 17) writeonly buffer Status { uint status[]; };

const uint kRecordFloats = 13u;
const uint kThreads = 64u;
const uint kPixels = 4u;  // a thread's pixels: one column, rows r + 4j
const uint kBatch = 4u;   // instances a round (kBatch * kRecordFloats <= kThreads)

struct Staged {
  float mx, my, A, B, C, opacity, power_cut, depth;
  float rgb[3];
  float normal[3];
};
shared Staged batch[kBatch];
shared float part[kBatch * kThreads * kRecordFloats];

// What a pixel's walk carries from one step back to the one before it.
struct Walk {
  float T;  // transmittance after the step being undone
  float after[3], after_S, after_N[3], after_R, after_PW;  // what the later steps added
};
// A pixel's fixed inputs: upstream gradients, saved values.
struct Pixel {
  float fx, fy, T_final, d_alpha_out, gS, gM, gL, R_final, Z0;
  float dC[3], gN[3];
  uint last, med_at;
};

void main() {
  uint t = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.y * uint(p.tiles_x) + gl_WorkGroupID.x;
  uint begin = ranges[2u * tile], end = ranges[2u * tile + 1u];
  uint flags = p.flags;
  bool g_depth = (flags & GLINT_AOV_DEPTH) != 0u && (p.grad_flags & GLINT_GRAD_DEPTH) != 0u;
  bool g_median = (flags & GLINT_AOV_MEDIAN) != 0u && (p.grad_flags & GLINT_GRAD_MEDIAN) != 0u;
  bool g_normal = (flags & GLINT_AOV_NORMAL) != 0u && (p.grad_flags & GLINT_GRAD_NORMAL) != 0u;
  bool g_dist = (flags & GLINT_AOV_DISTORTION) != 0u && (p.grad_flags & GLINT_GRAD_DISTORTION) != 0u;
  uint nrec = p.record_floats;
  Pixel px[kPixels];
  Walk wk[kPixels];
  [[unroll]] for (uint j = 0u; j < kPixels; ++j) {
    int x = int(gl_WorkGroupID.x) * kTileSize + int(t % 16u);
    int y = int(gl_WorkGroupID.y) * kTileSize + int(t / 16u + 4u * j);
    bool inside = x < p.width && y < p.height;
    uint pix = inside ? uint(y * p.width + x) : 0u;
    Pixel q = Pixel(float(x) + 0.5, float(y) + 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, float[3](0.0, 0.0, 0.0),
                    float[3](0.0, 0.0, 0.0), begin, GLINT_NO_MEDIAN);
    Walk w = Walk(0.0, float[3](0.0, 0.0, 0.0), 0.0, float[3](0.0, 0.0, 0.0), 0.0, 0.0);
    if (inside) {
      q.last = last[pix];
      w.T = t_final[pix];
      [[unroll]] for (int c = 0; c < 3; ++c) {
        q.dC[c] = d_rgb[3u * pix + uint(c)];
        w.after[c] = w.T * p.background[c];
      }
      if ((p.grad_flags & GLINT_GRAD_ALPHA) != 0u) q.d_alpha_out = d_alpha[pix];
      if (g_depth) {
        float al = 1.0 - w.T, gd = d_depth[pix];
        if (al > 0.0) {
          q.gS = gd / al;
          q.d_alpha_out -= gd * (depth_sum[pix] / al) / al;
        }
      }
      if (g_median) {
        q.gM = d_median[pix];
        q.med_at = median_at[pix];
      }
      if (g_normal)
        [[unroll]] for (int c = 0; c < 3; ++c) q.gN[c] = d_normal[3u * pix + uint(c)];
      if (g_dist) {
        q.gL = d_distortion[pix];
        q.R_final = dist_r[pix];
        q.Z0 = dist_z0[pix];
      }
    }
    q.T_final = w.T;
    px[j] = q;
    wk[j] = w;
  }
  uint count = end - begin;
  uint walked = 0u;
  // The loops inside a round are unrolled ([[unroll]]): lavapipe's loop limit counts every
  // iteration of every loop of an invocation.
  for (; walked < count; walked += kBatch) {
    // newest first: instance b of the round is end - 1 - walked - b
    if (t < kBatch && walked + t < count) {
      ProjectedSplat s = splats[sorted_splat[end - 1u - walked - t]];
      batch[t] = Staged(s.mx, s.my, s.conic[0], s.conic[1], s.conic[2], s.opacity, s.power_cut, s.depth, s.rgb,
                        s.normal);
    }
    barrier();  // the round's splats are staged; the previous round's sums have read `part`
    [[unroll]] for (uint b = 0u; b < kBatch; ++b) {
      float acc[13] = float[13](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
      uint q = end - 1u - walked - b;
      if (walked + b < count) {
        Staged s = batch[b];
        [[unroll]] for (uint j = 0u; j < kPixels; ++j) {
          if (q >= px[j].last) continue;
          float dx = px[j].fx - s.mx, dy = px[j].fy - s.my;
          float power = splat_power(s.A, s.B, s.C, dx, dy);
          float G;
          bool clamped;
          float a = blend_alpha(s.opacity, power, s.power_cut, G, clamped);
          if (!(a > 0.0)) continue;
          float inv = 1.0 / (1.0 - a);
          float T = wk[j].T;
          float Tb = T * inv;
          float w = a * Tb;
          float g = px[j].d_alpha_out * px[j].T_final * inv;
          [[unroll]] for (int c = 0; c < 3; ++c) {
            g += px[j].dC[c] * blend_dalpha_channel(s.rgb[c], Tb, wk[j].after[c], inv);
            wk[j].after[c] += w * s.rgb[c];
            acc[6 + c] += px[j].dC[c] * w;
          }
          if (flags != 0u) {
            float z = s.depth;
            float dz = 0.0;
            if (g_depth) {
              g += px[j].gS * blend_dalpha_channel(z, Tb, wk[j].after_S, inv);
              wk[j].after_S += w * z;
              dz += px[j].gS * w;
            }
            if (g_dist) {
              float zr = z - px[j].Z0;
              float a_before = 1.0 - Tb, w_after = T - px[j].T_final;
              float b_before = px[j].R_final - (wk[j].after_R + w * zr);
              float dw = distortion_dw(zr, a_before, b_before, w_after, wk[j].after_R);
              g += px[j].gL * blend_dalpha_channel(dw, Tb, wk[j].after_PW, inv);
              wk[j].after_PW += w * dw;
              wk[j].after_R += w * zr;
              dz += px[j].gL * distortion_dz(w, a_before, w_after);
            }
            if (g_median && q == px[j].med_at) dz += px[j].gM;
            if (g_normal)
              [[unroll]] for (int c = 0; c < 3; ++c) {
                g += px[j].gN[c] * blend_dalpha_channel(s.normal[c], Tb, wk[j].after_N[c], inv);
                wk[j].after_N[c] += w * s.normal[c];
                acc[10 + c] += px[j].gN[c] * w;
              }
            acc[9] += dz;
          }
          if (clamped) g = 0.0;  // alpha is the constant 0.99 there
          AlphaMoments m = AlphaMoments(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
          blend_alpha_moments_add(g, G, dx, dy, m);
          acc[0] += m.p;
          acc[1] += m.px;
          acc[2] += m.py;
          acc[3] += m.pxx;
          acc[4] += m.pxy;
          acc[5] += m.pyy;
          wk[j].T = Tb;
        }
      }
      [[unroll]] for (uint k = 0u; k < kRecordFloats; ++k)
        if (k < nrec) part[(b * kThreads + t) * kRecordFloats + k] = acc[k];
    }
    barrier();  // every thread's sums of the round are in `part`; `batch` is no longer read
    // thread t sums (instance t / nrec, float t % nrec) over the 64 threads, in thread order
    if (t < kBatch * nrec) {
      uint b = t / nrec, k = t % nrec;
      if (walked + b < count) {
        float sum = 0.0;
        [[unroll]] for (uint i = 0u; i < kThreads; ++i) sum += part[(b * kThreads + i) * kRecordFloats + k];
        records[nrec * sorted_slot[end - 1u - walked - b] + k] = sum;
      }
    }
  }
  if (walked < count && t == 0u) status[0] = 1u;
}
