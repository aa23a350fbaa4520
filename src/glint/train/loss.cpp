#include "glint/train/loss.h"

#include <cmath>
#include <string>
#include <vector>

#include "glint/core/error.h"
#include "glint/train/row_sum.h"
#include "glint/train/ssim.h"

namespace glint {

void apply_weights(ImageF& image, const float* w) {
  const int c = image.channels;
  const long pixels = static_cast<long>(image.width) * image.height;
  float* v = image.data.data();
#pragma omp parallel for schedule(static) if (pixels * c >= (1 << 16))
  for (long p = 0; p < pixels; ++p)
    for (int k = 0; k < c; ++k) v[p * c + k] *= w[p];
}

LossValue photometric_loss(const ImageF& render, const ImageF& target, ImageF* grad, const LossOptions& options,
                           SsimTargetStats<float>* ssim_stats, const LossWeights* weights) {
  if (render.width != target.width || render.height != target.height || render.channels != target.channels ||
      render.data.size() != target.data.size())
    throw Error("loss: render is " + std::to_string(render.width) + "x" + std::to_string(render.height) + "x" +
                std::to_string(render.channels) + " but target is " + std::to_string(target.width) + "x" +
                std::to_string(target.height) + "x" + std::to_string(target.channels));
  const float lambda = options.lambda_dssim;
  LossValue out;
  const int h = render.height;
  const long row = static_cast<long>(render.width) * render.channels;
  if (weights && !(weights->sum > 0) && row * h > 0) {  // every pixel masked: nothing to compare
    out.ssim = lambda != 0.f ? 1.0 : 0.0;
    out.total = lambda * (1.0 - out.ssim);
    if (grad) *grad = ImageF(render.width, render.height, render.channels);
    return out;
  }
  // masked: the loss of w render against the (weighted) target, over the weighted count
  static thread_local ImageF weighted;
  if (weights) {
    weighted.width = render.width;
    weighted.height = render.height;
    weighted.channels = render.channels;
    weighted.data.assign(render.data.begin(), render.data.end());
    apply_weights(weighted, weights->w);
  }
  const ImageF& x_img = weights ? weighted : render;
  const long count = row * h;
  const double count_w = weights ? render.channels * weights->sum : static_cast<double>(count);
  if (count == 0) {
    out.ssim = lambda != 0.f ? 1.0 : 0.0;
    out.total = lambda * (1.0 - out.ssim);
    if (grad) *grad = ImageF(render.width, render.height, render.channels);
    return out;
  }
  const float l1_scale = (1.f - lambda) / static_cast<float>(count_w);
  std::vector<double> row_sums(h);
  const SsimWeights<float> sw{weights ? weights->w : nullptr, weights ? weights->sum : 0.0};
  const SsimWeights<float>* swp = weights ? &sw : nullptr;
  if (grad && lambda != 0.f) {
    // the L1 term folded into the last pass of SSIM's gradient (SsimL1Fold)
    const SsimL1Fold<float> fold{l1_scale, lambda, row_sums.data()};
    out.ssim = ssim(x_img, target, grad, ssim_stats, &fold, swp);
  } else {
    out.ssim = lambda != 0.f ? ssim(x_img, target, nullptr, ssim_stats, nullptr, swp) : 0.0;
    // every value of grad is written below: a buffer of the right size is kept as it is
    if (grad && (grad->width != render.width || grad->height != render.height ||
                 grad->channels != render.channels || grad->data.size() != render.data.size()))
      *grad = ImageF(render.width, render.height, render.channels);
    const float* x = x_img.data.data();
    const float* y = target.data.data();
    float* g = grad ? grad->data.data() : nullptr;
    const int c = render.channels;
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
      if (g && weights)
        for (long j = r * row; j < (r + 1) * row; ++j) g[j] *= weights->w[j / c];
      row_sums[r] = abs_diff_row_sum(x + r * row, y + r * row, row);
    }
  }
  double total = 0;
  for (int r = 0; r < h; ++r) total += row_sums[r];
  out.l1 = total / count_w;
  out.total = (1.0 - lambda) * out.l1 + lambda * (1.0 - out.ssim);
  return out;
}

}  // namespace glint
