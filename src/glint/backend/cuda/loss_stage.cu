#include "glint/backend/cuda/loss_stage.h"

#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/loss_stages.h"
#include "glint/core/error.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

LossValue device_photometric_loss(DeviceSpan<const float> render, DeviceSpan<const float> target, int width,
                                  int height, int channels, float lambda, DeviceSpan<float> grad, LossBuffers& b) {
  const auto count = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                     static_cast<std::uint64_t>(channels);
  if (render.size != count || target.size != count || (grad.size != 0 && grad.size != count))
    throw Error("loss: render, target and gradient sizes differ from the image's");
  if (count == 0) return loss_value(static_cast<double>(lambda != 0.f), 0.0, 1, lambda);
  check_size("values in a loss image", count, kMaxPixels);
  const bool ssim = lambda != 0.f, with_grad = grad.size > 0;
  b.derivs.resize(ssim && with_grad ? 3 * count : 0);
  b.ssim_map.resize(ssim ? count : 0);
  b.abs_diff.resize(count);
  b.partials.resize(2 * std::size_t(loss_sum_blocks(count)));
  b.sums.resize(2);
  clear(b.sums);
  const LossSpans s{render,           target,           grad,              b.derivs.span(),
                    b.ssim_map.span(), b.abs_diff.span(), b.partials.span(), b.sums.span()};
  photometric_loss_launches(s, loss_image(width, height, channels, lambda));
  check_launches("loss");
  double sums[2] = {0, 0};
  download(b.sums.data(), 2, sums);
  return loss_value(sums[0], sums[1], count, lambda);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
