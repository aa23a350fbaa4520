#include "glint/backend/cuda/loss_stage.h"

#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/loss_stages.h"
#include "glint/core/error.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

LossValue device_photometric_loss(DeviceSpan<const float> render, DeviceSpan<const float> target, int width,
                                  int height, int channels, float lambda, DeviceSpan<float> grad, LossBuffers& b,
                                  DeviceSpan<const float> weight, double weight_sum) {
  const auto count = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                     static_cast<std::uint64_t>(channels);
  if (render.size != count || target.size != count || (grad.size != 0 && grad.size != count))
    throw Error("loss: render, target and gradient sizes differ from the image's");
  const bool weighted = weight.size > 0;
  if (weighted && weight.size * static_cast<std::uint64_t>(channels) != count)
    throw Error("loss: the weights' size differs from the image's");
  if (count == 0) return loss_value(static_cast<double>(lambda != 0.f), 0.0, 1, lambda);
  check_size("values in a loss image", count, kMaxPixels);
  if (weighted && !(weight_sum > 0)) {  // every pixel masked: nothing to compare, as train/loss.cpp
    if (grad.size > 0) clear(grad.data, grad.size);
    return loss_value(static_cast<double>(lambda != 0.f), 0.0, 1, lambda);
  }
  const bool ssim = lambda != 0.f, with_grad = grad.size > 0;
  b.derivs.resize(ssim && with_grad ? 3 * count : 0);
  b.ssim_map.resize(ssim ? count : 0);
  b.abs_diff.resize(count);
  b.partials.resize(2 * std::size_t(loss_sum_blocks(count)));
  b.sums.resize(2);
  clear(b.sums);
  b.weighted.resize(weighted ? count : 0);
  const LossSpans s{render,           target,           grad,              b.derivs.span(),
                    b.ssim_map.span(), b.abs_diff.span(), b.partials.span(), b.sums.span(),
                    weight,           b.weighted.span()};
  photometric_loss_launches(s, loss_image(width, height, channels, lambda, weighted ? weight_sum : -1.0));
  check_launches("loss");
  double sums[2] = {0, 0};
  download(b.sums.data(), 2, sums);
  return loss_value(sums[0], sums[1], weighted ? channels * weight_sum : static_cast<double>(count), lambda);
}

double device_mask_weights(DeviceSpan<const std::uint8_t> mask, DeviceSpan<float> weight, DeviceSpan<float> target,
                           int channels, LossBuffers& b) {
  if (mask.size != weight.size || target.size != weight.size * static_cast<std::uint64_t>(channels))
    throw Error("mask: mask, weights and target sizes differ");
  if (weight.size == 0) return 0.0;
  launch(mask_weight_kernel, shape_for(weight.size), mask, weight);
  launch(apply_weights_kernel, shape_for(target.size), target.as_const(), weight.as_const(),
         static_cast<std::int32_t>(channels), target);
  b.partials.resize(2 * std::size_t(loss_sum_blocks(weight.size)));
  b.sums.resize(2);
  clear(b.sums);
  sum_into(weight.as_const(), b.partials.span(), b.sums.span(), 0);
  check_launches("mask");
  return download_value(b.sums.data());
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
