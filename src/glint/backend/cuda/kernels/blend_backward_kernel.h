#pragma once
// The backward of the blend, deterministic without float atomics. Per tile (one block,
// one thread a pixel) the splats are walked back to front from each pixel's last blended
// step; for every splat the block sums its pixels' terms in a fixed order in shared memory and writes one record per (tile, splat) instance at the instance's
// splat-major slot. The splat kernel then sums each splat's records in tile order and runs
// the SH and projection VJPs of render/. Records hold what the gradient of the 2D
// parameters is linear in: the alpha moments of render/blend.h (p, px, py, pxx, pxy, pyy)
// and dL/d(colour), and with the geometry outputs dL/d(depth) and dL/d(normal).
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/blend_kernel.h"
#include "glint/render/blend.h"
#include "glint/render/project.h"
#include "glint/render/sh.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// A record: the six alpha moments, dL/d(colour), and with the geometry outputs dL/dz and
// dL/d(normal) of the splat (render::ProjectedGrad's depth and normal).
inline constexpr unsigned kRecordFloats = 13;
inline constexpr unsigned kColourRecordFloats = 9;  // the records of a render without them
GLINT_HD inline unsigned record_floats(std::uint32_t aov_flags) {
  return (aov_flags & kAovGeometry) != 0 ? kRecordFloats : kColourRecordFloats;
}

// dL/d(outputs), [H*W*3] and [H*W] (normal [H*W*3]); an empty span is zero.
struct BlendGradIn {
  DeviceSpan<const float> d_rgb, d_alpha;
  DeviceSpan<const float> d_depth{}, d_median{}, d_normal{}, d_distortion{};
};

GLINT_KERNEL void blend_backward_kernel(DeviceSpan<const ProjectedSplat> splats,
                                        DeviceSpan<const std::uint32_t> sorted_splat,
                                        DeviceSpan<const std::uint32_t> sorted_slot,
                                        DeviceSpan<const std::uint32_t> ranges, BlendImage img,
                                        DeviceSpan<const float> t_final, DeviceSpan<const std::uint32_t> last,
                                        BlendAovs saved, BlendGradIn grad_in, DeviceSpan<float> records) {
  constexpr unsigned kRows = 16;  // kBlendThreads = kRows * kRows
  __shared__ float part[kBlendThreads][kRecordFloats];
  __shared__ float rows[kRows][kRecordFloats];
  const std::uint32_t tile = blockIdx.x, t = threadIdx.x;
  const TilePixel px = tile_pixel(img, tile, t);
  const bool inside = px.inside;
  const float fx = px.cx, fy = px.cy;
  const std::uint32_t begin = ranges[2 * tile], end = ranges[2 * tile + 1];
  const std::uint32_t pix = px.index;
  const std::uint32_t my_last = inside ? last[pix] : begin;
  // the outputs with an upstream gradient (the others add nothing)
  const std::uint32_t flags = saved.flags;
  const bool g_depth = (flags & kAovDepth) && grad_in.d_depth.size > 0;
  const bool g_median = (flags & kAovMedian) && grad_in.d_median.size > 0;
  const bool g_normal = (flags & kAovNormal) && grad_in.d_normal.size > 0;
  const bool g_dist = (flags & kAovDistortion) && grad_in.d_distortion.size > 0;
  const unsigned nrec = record_floats(flags);
  float T = inside ? t_final[pix] : 0.f;  // transmittance after the step being undone
  float dC[3] = {0.f, 0.f, 0.f}, after[3] = {0.f, 0.f, 0.f};
  float d_alpha_out = 0.f;
  // geometry: upstream gradients and what the later steps added (back to front)
  float gS = 0.f, gM = 0.f, gN[3] = {0.f, 0.f, 0.f}, gL = 0.f;
  float after_S = 0.f, after_N[3] = {0.f, 0.f, 0.f};
  float R_final = 0.f, Z0 = 0.f, after_R = 0.f, after_PW = 0.f;  // distortion
  std::uint32_t med_at = kNoMedian;
  if (inside) {
    for (int c = 0; c < 3; ++c) {
      dC[c] = grad_in.d_rgb[row_element(pix, 3, static_cast<std::uint32_t>(c))];
      after[c] = T * img.background[c];  // what the later steps and the background add
    }
    if (grad_in.d_alpha.size > 0) d_alpha_out = grad_in.d_alpha[pix];
    if (g_depth) {  // depth = S / (1 - T_final): S through the blend, the alpha through T_final
      const float al = 1.f - T, gd = grad_in.d_depth[pix];
      if (al > 0.f) {
        gS = gd / al;
        d_alpha_out -= gd * (saved.depth_sum[pix] / al) / al;
      }
    }
    if (g_median) {
      gM = grad_in.d_median[pix];
      med_at = saved.median_at[pix];
    }
    if (g_normal)
      for (int c = 0; c < 3; ++c) gN[c] = grad_in.d_normal[row_element(pix, 3, static_cast<std::uint32_t>(c))];
    if (g_dist) {
      gL = grad_in.d_distortion[pix];
      R_final = saved.dist_r[pix];
      Z0 = saved.dist_z0[pix];
    }
  }
  const float T_final = T;
  for (std::uint32_t p = end; p > begin; --p) {
    const std::uint32_t q = p - 1;  // this instance, back to front
    const ProjectedSplat& s = splats[sorted_splat[q]];
    float term[kRecordFloats] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    if (q < my_last) {
      const float dx = fx - s.mx, dy = fy - s.my;
      const float power = render::splat_power(s.conic[0], s.conic[1], s.conic[2], dx, dy);
      float G = 0.f;
      bool clamped = false;
      const float a = render::blend_alpha(s.opacity, power, s.power_cut, G, clamped);
      if (a > 0.f) {
        const float inv = 1.f / (1.f - a);
        const float Tb = T * inv;  // transmittance before this step
        const float w = a * Tb;
        float g = d_alpha_out * T_final * inv;  // dL/da through the alpha output
        for (int c = 0; c < 3; ++c) {
          g += dC[c] * render::blend_dalpha_channel(s.rgb[c], Tb, after[c], inv);
          after[c] += w * s.rgb[c];
          term[6 + c] = dC[c] * w;
        }
        if (flags != 0) {
          const float z = s.depth;
          float dz = 0.f;
          if (g_depth) {
            g += gS * render::blend_dalpha_channel(z, Tb, after_S, inv);
            after_S += w * z;
            dz += gS * w;
          }
          if (g_dist) {
            // the weights before and after this step from the transmittance, the sums of
            // the earlier steps from the pixel's final ones (render/blend.h)
            const float zr = z - Z0;
            const float a_before = 1.f - Tb, w_after = T - T_final;
            const float b_before = R_final - (after_R + w * zr);
            const float dw = render::distortion_dw(zr, a_before, b_before, w_after, after_R);
            g += gL * render::blend_dalpha_channel(dw, Tb, after_PW, inv);
            after_PW += w * dw;
            after_R += w * zr;
            dz += gL * render::distortion_dz(w, a_before, w_after);
          }
          if (g_median && q == med_at) dz += gM;
          if (g_normal)
            for (int c = 0; c < 3; ++c) {
              g += gN[c] * render::blend_dalpha_channel(s.normal[c], Tb, after_N[c], inv);
              after_N[c] += w * s.normal[c];
              term[10 + c] = gN[c] * w;
            }
          term[9] = dz;
        }
        if (clamped) g = 0.f;  // alpha is the constant 0.99 there
        render::AlphaMoments<float> m{0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        render::blend_alpha_moments_add(g, G, dx, dy, m);
        term[0] = m.p;
        term[1] = m.px;
        term[2] = m.py;
        term[3] = m.pxx;
        term[4] = m.pxy;
        term[5] = m.pyy;
        T = Tb;
      }
    }
    // The block's sum in a fixed order: 16 rows of 16 pixels, then the 16 row sums. Two
    // barriers a splat: `part` is rewritten only after the row sums have read it, and
    // `rows` only after thread 0 has read it (before it reaches the next first barrier).
    // (loops over the constant record size with a test, so that term and acc stay in
    // registers rather than being indexed by a run-time bound)
    for (unsigned k = 0; k < kRecordFloats; ++k)
      if (k < nrec) part[t][k] = term[k];
    __syncthreads();
    if (t < kRows) {
      float acc[kRecordFloats] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
      for (unsigned r = 0; r < kRows; ++r)
        for (unsigned k = 0; k < kRecordFloats; ++k)
          if (k < nrec) acc[k] += part[t * kRows + r][k];
      for (unsigned k = 0; k < kRecordFloats; ++k)
        if (k < nrec) rows[t][k] = acc[k];
    }
    __syncthreads();
    if (t == 0) {
      float acc[kRecordFloats] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
      for (unsigned r = 0; r < kRows; ++r)
        for (unsigned k = 0; k < kRecordFloats; ++k)
          if (k < nrec) acc[k] += rows[r][k];
      for (unsigned k = 0; k < kRecordFloats; ++k)
        if (k < nrec) records[row_element(sorted_slot[q], nrec, k)] = acc[k];
    }
  }
}

// dL/d(raw parameters) of every splat, from its records (splat-major, in tile order): the
// written[i] records from offsets[i] (the key kernel's count, tile_list_kernels.h).
struct SplatGrads {
  DeviceSpan<float> means, log_scales, quats, opacity_logits, sh_dc, sh_rest, mean2d;
};

GLINT_KERNEL void splat_backward_kernel(render::ViewT<float> view, SplatGeometry g, std::int32_t sh_degree,
                                        std::uint32_t antialiased, DeviceSpan<const ProjectedSplat> splats,
                                        DeviceSpan<const std::uint64_t> offsets,
                                        DeviceSpan<const std::uint64_t> written, DeviceSpan<const float> records,
                                        std::uint32_t record_floats, SplatGrads out) {
  const std::uint64_t i = thread_index();
  if (i >= splats.size) return;
  float sum[kRecordFloats] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  for (std::uint64_t r = offsets[i]; r < offsets[i] + written[i]; ++r)
    for (unsigned k = 0; k < kRecordFloats; ++k)
      if (k < record_floats) sum[k] += records[row_element(r, record_floats, k)];
  for (unsigned k = 0; k < 3; ++k)
    out.means[row_element(i, 3, k)] = out.log_scales[row_element(i, 3, k)] = out.sh_dc[row_element(i, 3, k)] = 0.f;
  for (unsigned k = 0; k < 4; ++k) out.quats[row_element(i, 4, k)] = 0.f;
  for (unsigned k = 0; k < 45; ++k) out.sh_rest[row_element(i, 45, k)] = 0.f;
  out.opacity_logits[i] = 0.f;
  out.mean2d[row_element(i, 2, 0)] = out.mean2d[row_element(i, 2, 1)] = 0.f;
  const ProjectedSplat& s = splats[i];
  if (s.tiles == 0) return;
  const render::AlphaMoments<float> m{sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]};
  render::ProjectedGrad<float> pg{};
  pg.depth = sum[9];
  for (int c = 0; c < 3; ++c) pg.normal[c] = sum[10 + c];
  render::blend_alpha_moments_grad(m, s.opacity, s.conic[0], s.conic[1], s.conic[2], pg.opacity, pg.mean2d[0],
                                   pg.mean2d[1], pg.conic[0], pg.conic[1], pg.conic[2]);
  const Vec3f mean = load3(g.means.data, i);
  Vec3f d_mean_sh{0.f, 0.f, 0.f};
  render::sh_color_vjp(sh_degree, mean, view.campos, g.sh_dc.data + row_element(i, 3, 0),
                       g.sh_rest.data + row_element(i, 45, 0), Vec3f{sum[6], sum[7], sum[8]},
                       out.sh_dc.data + row_element(i, 3, 0), out.sh_rest.data + row_element(i, 45, 0), d_mean_sh);
  render::SplatGeomGrad<float> sg{};
  render::project_splat_vjp(view, mean, load3(g.log_scales.data, i), load_quat(g.quats.data, i), g.opacity_logits[i],
                            antialiased != 0, pg, sg);
  store3(out.means.data, i, sg.mean + d_mean_sh);
  store3(out.log_scales.data, i, sg.log_scale);
  store_quat(out.quats.data, i, sg.quat);
  out.opacity_logits[i] = sg.opacity_logit;
  out.mean2d[row_element(i, 2, 0)] = pg.mean2d[0];
  out.mean2d[row_element(i, 2, 1)] = pg.mean2d[1];
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
