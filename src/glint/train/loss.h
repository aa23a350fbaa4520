#pragma once
// The photometric loss of 3DGS: (1 - lambda) * L1 + lambda * (1 - SSIM).
#include "glint/core/image.h"
#include "glint/train/ssim.h"

namespace glint {

struct LossOptions {
  float lambda_dssim = 0.2f;
};

struct LossValue {
  double total = 0;  // (1 - lambda) * l1 + lambda * (1 - ssim)
  double l1 = 0;     // mean |render - target| over all values
  double ssim = 0;   // mean SSIM (ssim.h)
};

// Per-pixel weights of the loss (a view's mask, 0 = ignore): [h * w] values in [0, 1] and
// their sum.
struct LossWeights {
  const float* w = nullptr;
  double sum = 0;
};

// Loss between a render and its target (equal sizes, any channel count; glint::Error
// otherwise). When grad is given it is resized like `render` and receives d total / d render;
// the L1 part uses sign(render - target) / count with sign(0) = 0. Sums are taken per row
// and combined in row order, so the value does not depend on the thread count.
// ssim_stats: the target's SSIM blurs, kept across calls (ssim.h); filled on first use.
// weights (masks): `target` must already be multiplied by them (the training session does it
// once a target, so that its kept SSIM blurs are of that image); the loss is then the one
// of w render against it, L1 and SSIM each a mean over the pixels weighted by w (SSIM as
// SsimWeights defines it), and grad is d total / d render. A pixel of weight 0 adds nothing
// to the value or the gradient, whatever the render and the target hold there.
LossValue photometric_loss(const ImageF& render, const ImageF& target, ImageF* grad = nullptr,
                           const LossOptions& options = {}, SsimTargetStats<float>* ssim_stats = nullptr,
                           const LossWeights* weights = nullptr);

// Multiplies every value of `image` by its pixel's weight (w: [h * w]), in place: a masked
// target (photometric_loss) or render.
void apply_weights(ImageF& image, const float* w);

}  // namespace glint
