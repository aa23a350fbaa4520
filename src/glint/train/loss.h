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

// Loss between a render and its target (equal sizes, any channel count; glint::Error
// otherwise). When grad is given it is resized like `render` and receives d total / d render;
// the L1 part uses sign(render - target) / count with sign(0) = 0. Sums are taken per row
// and combined in row order, so the value does not depend on the thread count.
// ssim_stats: the target's SSIM blurs, kept across calls (ssim.h); filled on first use.
LossValue photometric_loss(const ImageF& render, const ImageF& target, ImageF* grad = nullptr,
                           const LossOptions& options = {}, SsimTargetStats<float>* ssim_stats = nullptr);

}  // namespace glint
