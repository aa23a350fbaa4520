#pragma once
// Evaluation metrics. Both work on values in [0, 1] (8-bit images are divided by 255) and
// compute in double, so they are reproducible to the last digit printed. They take the
// images as given: clamp float renders to [0, 1] first (clamp01), as 3DGS does before
// evaluating. Mismatched sizes are a glint::Error.
#include "glint/core/image.h"

namespace glint {

// 10 log10(1 / MSE) over all values; +infinity for identical images.
double psnr(const ImageF& a, const ImageF& b);
double psnr(const Image8& a, const Image8& b);

// Mean SSIM with the training definition (ssim.h), evaluated in double precision.
double ssim_metric(const ImageF& a, const ImageF& b);
double ssim_metric(const Image8& a, const Image8& b);

// The same over the pixels a mask keeps (mask: one channel at the images' size, value / 255
// weighting each pixel, 0 = ignored), as the training loss weighs them (train/loss.h): MSE
// as sum_p w_p sum_c (a - b)^2 / (c sum w); SSIM as the w-weighted mean of the SSIM map of
// w a against w b, so that nothing under a zero weight changes either. A mask of zeros
// only: PSNR +infinity, SSIM 1.
double psnr_masked(const ImageF& a, const ImageF& b, const Image8& mask);
double ssim_masked(const ImageF& a, const ImageF& b, const Image8& mask);

// (8-bit -> float conversion: to_float in io/image_ops.h.)
// Clamps every value into [0, 1] in place.
void clamp01(ImageF& im);

}  // namespace glint
