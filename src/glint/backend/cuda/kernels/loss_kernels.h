#pragma once
// The photometric loss on the device, (1 - lambda) L1 + lambda (1 - SSIM) (train/loss.h),
// over [H,W,C] images, with the per-value math of train/ssim_math.h: the constants every
// loss kernel takes, the L1 term alone (lambda 0) and the sums, in double, in a fixed order
// (no atomics). SSIM's fused blurs are ssim_tile_kernels.h. The blurs fuse their products
// (fmaf), as the CPU blur does on CPUs with FMA; the rest of the per-value math is built
// with contraction (--fmad=true) and matches the CPU loss to tolerances.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/train/ssim_math.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// The image and the loss's constants, as every loss kernel takes them.
struct LossImage {
  std::int32_t width, height, channels;
  float l1_scale;   // (1 - lambda) / count (with weights: channels x the weights' sum)
  float lambda;     // D-SSIM weight
  float inv_count;  // 1 / count
  float c1, c2;     // SSIM's constants
  float window[kSsimWindow];
  std::uint32_t pad;
};
static_assert(sizeof(LossImage) == 80);
static_assert(offsetof(LossImage, l1_scale) == 12 && offsetof(LossImage, c1) == 24 &&
              offsetof(LossImage, window) == 32 && offsetof(LossImage, pad) == 76);

struct FusedMulAdd {
  GLINT_HD float operator()(float a, float b, float c) const { return fmaf(a, b, c); }
};

// A value's pixel weight (masks: mask_kernels.h), or 1 without weights.
GLINT_HD inline float value_weight(DeviceSpan<const float> weight, std::uint64_t i, const LossImage& img) {
  return weight.size > 0 ? weight[i / static_cast<std::uint64_t>(img.channels)] : 1.f;
}

// The L1 term alone (lambda 0): |a - b| and, when grad is not empty, its gradient. With
// weights (masks) a and b are the weighted images and the gradient is weighted once more,
// as train/loss.cpp does.
GLINT_KERNEL void l1_grad_kernel(DeviceSpan<const float> a, DeviceSpan<const float> b, LossImage img,
                                 DeviceSpan<const float> weight, DeviceSpan<float> grad, DeviceSpan<float> abs_diff) {
  const std::uint64_t i = thread_index();
  if (i >= a.size) return;
  const float d = a[i] - b[i];
  if (grad.size > 0) {
    grad[i] = img.l1_scale * l1_sign(d);
    if (weight.size > 0) grad[i] *= value_weight(weight, i, img);
  }
  abs_diff[i] = fabsf(d);
}

// Sums in double: block k covers values [k B P, (k + 1) B P) (B threads, P = per_thread),
// thread t adds the values k B P + t + B j, j < P, in order, and the block's threads are
// combined by a fixed tree into out[k]. The same launch gives the same bits every run.
inline constexpr unsigned kSumThreads = 256;
template <class T>
GLINT_KERNEL void block_sum_kernel(DeviceSpan<const T> values, std::uint32_t per_thread, DeviceSpan<double> out) {
  __shared__ double part[kSumThreads];
  const std::uint32_t t = threadIdx.x, k = blockIdx.x;
  const std::uint64_t base = static_cast<std::uint64_t>(k) * kSumThreads * per_thread + t;
  double s = 0;
  for (std::uint32_t j = 0; j < per_thread; ++j) {
    const std::uint64_t at = base + static_cast<std::uint64_t>(j) * kSumThreads;
    if (at < values.size) s += static_cast<double>(values[at]);
  }
  part[t] = s;
  __syncthreads();
  for (unsigned half = kSumThreads / 2; half > 0; half /= 2) {
    if (t < half) part[t] += part[t + half];
    __syncthreads();
  }
  if (t == 0) out[k] = part[0];
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
