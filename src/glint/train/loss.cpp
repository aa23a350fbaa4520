#include "glint/train/loss.h"

#include <cmath>
#include <string>
#include <vector>

#include "glint/core/error.h"
#include "glint/train/row_sum.h"
#include "glint/train/ssim.h"

namespace glint {

LossValue photometric_loss(const ImageF& render, const ImageF& target, ImageF* grad, const LossOptions& options,
                           SsimTargetStats<float>* ssim_stats) {
  if (render.width != target.width || render.height != target.height || render.channels != target.channels ||
      render.data.size() != target.data.size())
    throw Error("loss: render is " + std::to_string(render.width) + "x" + std::to_string(render.height) + "x" +
                std::to_string(render.channels) + " but target is " + std::to_string(target.width) + "x" +
                std::to_string(target.height) + "x" + std::to_string(target.channels));
  const float lambda = options.lambda_dssim;
  LossValue out;
  const int h = render.height;
  const long row = static_cast<long>(render.width) * render.channels;
  const long count = row * h;
  if (count == 0) {
    out.ssim = lambda != 0.f ? 1.0 : 0.0;
    out.total = lambda * (1.0 - out.ssim);
    if (grad) *grad = ImageF(render.width, render.height, render.channels);
    return out;
  }
  const float l1_scale = (1.f - lambda) / static_cast<float>(count);
  std::vector<double> row_sums(h);
  if (grad && lambda != 0.f) {
    // the L1 term folded into the last pass of SSIM's gradient (SsimL1Fold)
    const SsimL1Fold<float> fold{l1_scale, lambda, row_sums.data()};
    out.ssim = ssim(render, target, grad, ssim_stats, &fold);
  } else {
    out.ssim = lambda != 0.f ? ssim(render, target, nullptr, ssim_stats) : 0.0;
    // every value of grad is written below: a buffer of the right size is kept as it is
    if (grad && (grad->width != render.width || grad->height != render.height ||
                 grad->channels != render.channels || grad->data.size() != render.data.size()))
      *grad = ImageF(render.width, render.height, render.channels);
    const float* x = render.data.data();
    const float* y = target.data.data();
    float* g = grad ? grad->data.data() : nullptr;
    // cheap per value: threads from 64k values (a 150x150 RGB image), where training's
    // awake threads make a parallel region cost less than it saves
#pragma omp parallel for schedule(static) if (count >= (1 << 16))
    for (int r = 0; r < h; ++r) {
      // The gradient in its own loop, which vectorises (a sign through branches mispredicts
      // on noisy residuals); the sum in double, in a fixed order (row_sum).
      if (g)
        for (long j = r * row; j < (r + 1) * row; ++j) {
          const float d = x[j] - y[j];
          const float sign = static_cast<float>(d > 0.f) - static_cast<float>(d < 0.f);
          g[j] = l1_scale * sign;
        }
      row_sums[r] = abs_diff_row_sum(x + r * row, y + r * row, row);
    }
  }
  double total = 0;
  for (int r = 0; r < h; ++r) total += row_sums[r];
  out.l1 = total / static_cast<double>(count);
  out.total = (1.0 - lambda) * out.l1 + lambda * (1.0 - out.ssim);
  return out;
}

}  // namespace glint
