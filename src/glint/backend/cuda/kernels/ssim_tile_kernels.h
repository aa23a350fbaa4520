#pragma once
// SSIM's two blurs, each fused into one kernel over 16x16 tiles of output pixels: a block
// stages its tile and a 5-pixel halo of the inputs in shared memory, runs the separable
// blur's pass along x there (the halo rows too) and its pass along y from that, and writes
// only what follows from the blurred values:
//   ssim_forward_tile_kernel   the five moment blurs -> SSIM map, its three derivatives, |a - b|
//   ssim_backward_tile_kernel  the three derivative blurs -> d loss / d a (L1 term folded in)
// With weights (masks: a and b then the weighted images) each value of the SSIM map and its
// derivatives, and the gradient, are multiplied by their pixel's weight, as train/ssim.cpp
// weighs them.
// Channels one after another, each blurred on its own. Every blurred value is
// ssim_window_sum's fixed-order sum (train/ssim_math.h) over the same taps as the CPU's
// blur, so the tile size does not change the bits.
#include <cmath>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/loss_kernels.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

inline constexpr int kSsimTile = 16;
inline constexpr int kSsimSpan = kSsimTile + 2 * kSsimRadius;  // staged rows and columns
inline constexpr unsigned kSsimTileThreads = kSsimTile * kSsimTile;

GLINT_HD inline std::uint32_t ssim_tiles_x(const LossImage& img) {
  return static_cast<std::uint32_t>((img.width + kSsimTile - 1) / kSsimTile);
}

// Stages `planes` planes (count values each, channel ch) of the block's tile and halo into
// staged[p][row][col], zeros outside the image. All threads of the block take part.
template <int planes>
GLINT_HD inline void stage_tile(const float* const (&src)[planes], const LossImage& img, int ch, int x0, int y0,
                                std::uint32_t t, float (*staged)[kSsimSpan][kSsimSpan]) {
  for (std::uint32_t k = t; k < static_cast<std::uint32_t>(kSsimSpan * kSsimSpan); k += kSsimTileThreads) {
    const int r = static_cast<int>(k) / kSsimSpan, q = static_cast<int>(k) % kSsimSpan;
    const int x = x0 + q - kSsimRadius, y = y0 + r - kSsimRadius;
    const bool in = x >= 0 && x < img.width && y >= 0 && y < img.height;
    const std::size_t at = in ? (static_cast<std::size_t>(y) * static_cast<std::size_t>(img.width) +
                                 static_cast<std::size_t>(x)) * static_cast<std::size_t>(img.channels) +
                                    static_cast<std::size_t>(ch)
                              : 0;
    for (int p = 0; p < planes; ++p) staged[p][r][q] = in ? src[p][at] : 0.f;
  }
}

GLINT_KERNEL void ssim_forward_tile_kernel(DeviceSpan<const float> a, DeviceSpan<const float> b, LossImage img,
                                           DeviceSpan<const float> weight, DeviceSpan<float> derivs,
                                           DeviceSpan<float> ssim_map, DeviceSpan<float> abs_diff) {
  __shared__ float in[2][kSsimSpan][kSsimSpan];  // a, b of one channel
  __shared__ float hx[5][kSsimSpan][kSsimTile];  // a, b, aa, bb, ab blurred along x
  const std::uint32_t t = threadIdx.x, tile = blockIdx.x;
  const std::uint64_t count = a.size;  // the derivative planes' offsets pass 2^32 before count does
  const int x0 = static_cast<int>(tile % ssim_tiles_x(img)) * kSsimTile;
  const int y0 = static_cast<int>(tile / ssim_tiles_x(img)) * kSsimTile;
  const int tx = static_cast<int>(t) % kSsimTile, ty = static_cast<int>(t) / kSsimTile;
  const int x = x0 + tx, y = y0 + ty;
  const bool inside = x < img.width && y < img.height;
  const FusedMulAdd madd;
  for (int ch = 0; ch < img.channels; ++ch) {
    const float* const src[2] = {a.data, b.data};
    stage_tile<2>(src, img, ch, x0, y0, t, in);
    __syncthreads();
    for (std::uint32_t k = t; k < static_cast<std::uint32_t>(kSsimSpan * kSsimTile); k += kSsimTileThreads) {
      const int r = static_cast<int>(k) / kSsimTile, q = static_cast<int>(k) % kSsimTile;
      const float* xa = &in[0][r][q];
      const float* xb = &in[1][r][q];
      float v[kSsimWindow];
      hx[0][r][q] = ssim_window_sum(img.window, xa, madd);
      hx[1][r][q] = ssim_window_sum(img.window, xb, madd);
      for (int j = 0; j < kSsimWindow; ++j) v[j] = xa[j] * xa[j];
      hx[2][r][q] = ssim_window_sum(img.window, v, madd);
      for (int j = 0; j < kSsimWindow; ++j) v[j] = xb[j] * xb[j];
      hx[3][r][q] = ssim_window_sum(img.window, v, madd);
      for (int j = 0; j < kSsimWindow; ++j) v[j] = xa[j] * xb[j];
      hx[4][r][q] = ssim_window_sum(img.window, v, madd);
    }
    __syncthreads();
    if (inside) {
      float m[5];
      for (int p = 0; p < 5; ++p) {
        float v[kSsimWindow];
        for (int j = 0; j < kSsimWindow; ++j) v[j] = hx[p][ty + j][tx];
        m[p] = ssim_window_sum(img.window, v, madd);
      }
      const std::uint32_t i = (static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(img.width) +
                               static_cast<std::uint32_t>(x)) * static_cast<std::uint32_t>(img.channels) +
                              static_cast<std::uint32_t>(ch);
      float dm = 0.f, d11 = 0.f, d12 = 0.f;
      const float w = value_weight(weight, i, img);
      if (derivs.size > 0) {
        ssim_map[i] = ssim_map_value<true>(m[0], m[1], m[2], m[3], m[4], img.c1, img.c2, &dm, &d11, &d12);
        derivs[i] = weight.size > 0 ? dm * w : dm;
        derivs[plane_element(1, count, i)] = weight.size > 0 ? d11 * w : d11;
        derivs[plane_element(2, count, i)] = weight.size > 0 ? d12 * w : d12;
      } else {
        ssim_map[i] = ssim_map_value<false>(m[0], m[1], m[2], m[3], m[4], img.c1, img.c2, &dm, &d11, &d12);
      }
      if (weight.size > 0) ssim_map[i] *= w;
      abs_diff[i] = fabsf(a[i] - b[i]);
    }
    __syncthreads();  // the next channel overwrites the staged values
  }
}

GLINT_KERNEL void ssim_backward_tile_kernel(DeviceSpan<const float> derivs, DeviceSpan<const float> a,
                                            DeviceSpan<const float> b, LossImage img, DeviceSpan<const float> weight,
                                            DeviceSpan<float> grad) {
  __shared__ float in[3][kSsimSpan][kSsimSpan];  // the derivative planes of one channel
  __shared__ float hx[3][kSsimSpan][kSsimTile];  // blurred along x
  const std::uint32_t t = threadIdx.x, tile = blockIdx.x;
  const std::uint64_t count = grad.size;
  const int x0 = static_cast<int>(tile % ssim_tiles_x(img)) * kSsimTile;
  const int y0 = static_cast<int>(tile / ssim_tiles_x(img)) * kSsimTile;
  const int tx = static_cast<int>(t) % kSsimTile, ty = static_cast<int>(t) / kSsimTile;
  const int x = x0 + tx, y = y0 + ty;
  const bool inside = x < img.width && y < img.height;
  const FusedMulAdd madd;
  for (int ch = 0; ch < img.channels; ++ch) {
    const float* const src[3] = {derivs.data, derivs.data + plane_element(1, count, 0),
                                 derivs.data + plane_element(2, count, 0)};
    stage_tile<3>(src, img, ch, x0, y0, t, in);
    __syncthreads();
    for (std::uint32_t k = t; k < static_cast<std::uint32_t>(kSsimSpan * kSsimTile); k += kSsimTileThreads) {
      const int r = static_cast<int>(k) / kSsimTile, q = static_cast<int>(k) % kSsimTile;
      for (int p = 0; p < 3; ++p) hx[p][r][q] = ssim_window_sum(img.window, &in[p][r][q], madd);
    }
    __syncthreads();
    if (inside) {
      float m[3];
      for (int p = 0; p < 3; ++p) {
        float v[kSsimWindow];
        for (int j = 0; j < kSsimWindow; ++j) v[j] = hx[p][ty + j][tx];
        m[p] = ssim_window_sum(img.window, v, madd);
      }
      const std::uint32_t i = (static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(img.width) +
                               static_cast<std::uint32_t>(x)) * static_cast<std::uint32_t>(img.channels) +
                              static_cast<std::uint32_t>(ch);
      const float g = ssim_grad_value(img.inv_count, m[0], m[1], m[2], a[i], b[i]);
      grad[i] = img.l1_scale * l1_sign(a[i] - b[i]) - img.lambda * g;
      if (weight.size > 0) grad[i] *= value_weight(weight, i, img);
    }
    __syncthreads();
  }
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
