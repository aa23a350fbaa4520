#pragma once
// The photometric loss's launches in order (kernels/loss_kernels.h), over buffers the
// caller owns: one header for the device (loss_stage.cu) and the emulated tests, so both
// run the same sequence. The two sums come back in sums[0] (SSIM map) and sums[1]
// (|render - target|); the caller turns them into the LossValue (loss_value()).
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/kernels/loss_kernels.h"
#include "glint/backend/cuda/kernels/mask_kernels.h"
#include "glint/backend/cuda/kernels/ssim_tile_kernels.h"
#include "glint/backend/cuda/launch.h"
#include "glint/train/loss.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// Buffers of one loss evaluation over count = width * height * channels values.
struct LossSpans {
  DeviceSpan<const float> render, target;  // [count] each
  DeviceSpan<float> grad;                  // [count] d total / d render, or empty: no gradient
  DeviceSpan<float> derivs;                // [3 count] (only with a gradient)
  DeviceSpan<float> ssim_map, abs_diff;    // [count] each
  DeviceSpan<double> partials;             // [2 loss_sum_blocks(count)]
  DeviceSpan<double> sums;                 // [2]
  // masks (train/loss.h): per-pixel weights [count / channels], or empty; with them the
  // target must be weighted already, and `weighted` [count] receives the weighted render
  DeviceSpan<const float> weight;
  DeviceSpan<float> weighted;
};
static_assert(sizeof(LossSpans) == 160);

inline constexpr std::uint32_t kSumPerThread = 16;
inline std::uint32_t loss_sum_blocks(std::uint64_t count) {
  const std::uint64_t per_block = kSumThreads * kSumPerThread;
  return static_cast<std::uint32_t>((count + per_block - 1) / per_block);  // count < 2^44: a sum's values
}

// weight_sum < 0: no weights; else the sum of the pixels' weights (masks), whose values
// count channels x weight_sum.
inline LossImage loss_image(int width, int height, int channels, float lambda, double weight_sum = -1) {
  LossImage img{};
  img.width = width;
  img.height = height;
  img.channels = channels;
  const double counted =
      weight_sum >= 0 ? channels * weight_sum : static_cast<double>(static_cast<long>(width) * height * channels);
  const auto count = static_cast<float>(counted);
  img.l1_scale = (1.f - lambda) / count;
  img.lambda = lambda;
  img.inv_count = static_cast<float>(1.0 / counted);
  img.c1 = static_cast<float>(kSsimC1);
  img.c2 = static_cast<float>(kSsimC2);
  const auto w = ssim_window_weights<float>();
  for (int k = 0; k < kSsimWindow; ++k) img.window[k] = w[static_cast<std::size_t>(k)];
  return img;
}

// sums[which] = the sum of values (float or double), in two launches (blocks, then their
// partial sums); partials holds 2 loss_sum_blocks(values.size) values.
template <class T>
void sum_into(DeviceSpan<const T> values, DeviceSpan<double> partials, DeviceSpan<double> sums, std::uint32_t which) {
  const std::uint32_t blocks = loss_sum_blocks(values.size);
  const DeviceSpan<double> mine{partials.data + which * blocks, blocks};
  launch(block_sum_kernel<T>, LaunchShape{dim3(blocks), dim3(kSumThreads)}, values, kSumPerThread, mine);
  const std::uint32_t per_thread = (blocks + kSumThreads - 1) / kSumThreads;
  launch(block_sum_kernel<double>, LaunchShape{dim3(1), dim3(kSumThreads)}, mine.as_const(), per_thread,
         DeviceSpan<double>{sums.data + which, 1});
}

// Runs the loss over non-empty images (count > 0); with lambda 0 no SSIM is computed
// (sums[0] is then left as it was).
inline void photometric_loss_launches(const LossSpans& s, const LossImage& img) {
  const bool grad = s.grad.size > 0;
  DeviceSpan<const float> render = s.render;
  if (s.weight.size > 0) {  // the loss of the weighted render (mask_kernels.h)
    launch(apply_weights_kernel, shape_for(s.render.size), s.render, s.weight, img.channels, s.weighted);
    render = s.weighted.as_const();
  }
  if (img.lambda == 0.f) {
    launch(l1_grad_kernel, shape_for(s.render.size), render, s.target, img, s.weight, s.grad, s.abs_diff);
  } else {
    const std::uint32_t tiles = ssim_tiles_x(img) * static_cast<std::uint32_t>((img.height + kSsimTile - 1) / kSsimTile);
    const LaunchShape tile_shape{dim3(tiles), dim3(kSsimTileThreads)};
    launch(ssim_forward_tile_kernel, tile_shape, render, s.target, img, s.weight,
           grad ? s.derivs : DeviceSpan<float>{}, s.ssim_map, s.abs_diff);
    if (grad)
      launch(ssim_backward_tile_kernel, tile_shape, s.derivs.as_const(), render, s.target, img, s.weight, s.grad);
    sum_into(s.ssim_map.as_const(), s.partials, s.sums, 0);
  }
  sum_into(s.abs_diff.as_const(), s.partials, s.sums, 1);
}

// The LossValue from the two sums, as photometric_loss (train/loss.cpp) forms it; count:
// the values counted (with weights, channels x their sum).
inline LossValue loss_value(double ssim_sum, double abs_sum, double count, float lambda) {
  LossValue out;
  out.ssim = lambda != 0.f ? ssim_sum / count : 0.0;
  out.l1 = abs_sum / count;
  out.total = (1.0 - lambda) * out.l1 + lambda * (1.0 - out.ssim);
  return out;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
