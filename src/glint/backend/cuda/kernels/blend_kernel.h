#pragma once
// The blend stage: one block a 16x16 tile, one thread a pixel. The tile's splats are staged
// in shared memory a block at a time, and every thread walks them front to back with the
// blend step of render/blend.h: a step below 1/255 or outside the cut is skipped, a step
// that would leave less than 1e-4 transmittance ends the pixel unblended, as on the CPU.
// Writes the colour over the background and the alpha, and for the backward each pixel's
// final transmittance and the end of its blended steps in the tile's list; and the optional
// outputs `aov.flags` asks for (expected and median depth, normals, distortion, count) with
// the per-element math the CPU tile kernels call (render/blend.h), and what their backward
// reads of them.
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/blend_aovs.h"
#include "glint/backend/cuda/blend_image.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/project_kernel.h"
#include "glint/render/blend.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {


GLINT_KERNEL void blend_kernel(DeviceSpan<const ProjectedSplat> splats, DeviceSpan<const std::uint32_t> sorted_splat,
                               DeviceSpan<const std::uint32_t> ranges, BlendImage img, DeviceSpan<float> rgb,
                               DeviceSpan<float> alpha, DeviceSpan<float> t_final, DeviceSpan<std::uint32_t> last,
                               BlendAovs aov) {
  __shared__ ProjectedSplat batch[kBlendThreads];
  const std::uint32_t tile = blockIdx.x, t = threadIdx.x;
  const TilePixel px = tile_pixel(img, tile, t);
  const bool inside = px.inside;
  const float fx = px.cx, fy = px.cy;
  const std::uint32_t begin = ranges[2 * tile], end = ranges[2 * tile + 1];
  const std::uint32_t flags = aov.flags;
  float T = 1.f, C[3] = {0.f, 0.f, 0.f};
  // the optional outputs' sums, as the CPU tile kernels keep them (raster_kernels_impl.h)
  float S = 0.f, N[3] = {0.f, 0.f, 0.f}, med = 0.f, cnt = 0.f, Dh = 0.f, R = 0.f, Z0 = 0.f;
  std::uint32_t med_at = kNoMedian;
  std::uint32_t end_blended = begin;
  bool done = !inside;
  for (std::uint32_t base = begin; base < end; base += kBlendThreads) {
    __syncthreads();  // the previous batch is no longer read
    if (base + t < end) batch[t] = splats[sorted_splat[base + t]];
    __syncthreads();
    const std::uint32_t count = end - base < kBlendThreads ? end - base : kBlendThreads;
    for (std::uint32_t j = 0; j < count && !done; ++j) {
      const ProjectedSplat& s = batch[j];
      const float power = render::splat_power(s.conic[0], s.conic[1], s.conic[2], fx - s.mx, fy - s.my);
      float G = 0.f;
      bool clamped = false;
      const float a = render::blend_alpha(s.opacity, power, s.power_cut, G, clamped);
      if (a == 0.f) continue;
      const float tn = T * (1.f - a);
      if (tn < static_cast<float>(render::kTransmittanceStop)) {
        done = true;
        break;
      }
      const float w = a * T;
      for (int c = 0; c < 3; ++c) C[c] += w * s.rgb[c];
      if (flags != 0) {
        const float z = s.depth;
        if (flags & kAovDepth) S += w * z;
        if (flags & kAovDistortion) {
          if (T == 1.f) Z0 = z;  // the first blended step
          const float zr = z - Z0;
          Dh += render::distortion_half_step(w, zr, 1.f - T, R);
          R += w * zr;
        }
        if (flags & kAovNormal)
          for (int c = 0; c < 3; ++c) N[c] += w * s.normal[c];
        if (flags & kAovCount) cnt += 1.f;
        if ((flags & kAovMedian) && T >= 0.5f && tn < 0.5f) {
          med = z;
          med_at = base + j;
          if (aov.stop_at_median) done = true;  // nothing later changes the median
        }
      }
      T = tn;
      end_blended = base + j + 1;
    }
  }
  if (!inside) return;
  const std::uint32_t pix = px.index;
  for (int c = 0; c < 3; ++c) rgb[row_element(pix, 3, static_cast<std::uint32_t>(c))] = C[c] + T * img.background[c];
  alpha[pix] = 1.f - T;
  t_final[pix] = T;
  last[pix] = end_blended;
  if (flags & kAovDepth) {
    const float al = 1.f - T;
    aov.depth_sum[pix] = S;
    aov.depth[pix] = al > 0.f ? S / al : 0.f;
  }
  if (flags & kAovDistortion) {
    aov.distortion[pix] = Dh + Dh;
    aov.dist_r[pix] = R;
    aov.dist_z0[pix] = Z0;
  }
  if (flags & kAovMedian) {
    aov.median[pix] = med;
    aov.median_at[pix] = med_at;
  }
  if (flags & kAovNormal)
    for (int c = 0; c < 3; ++c) aov.normal[row_element(pix, 3, static_cast<std::uint32_t>(c))] = N[c];
  if (flags & kAovCount) aov.count[pix] = cnt;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
