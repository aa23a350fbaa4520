#pragma once
// SSIM as 3DGS computes it for its loss: per channel, an 11x11 Gaussian window (sigma 1.5)
// centred on each pixel, zero padding at the borders ('same'-size conv2d with padding 5,
// the window not renormalised there), C1 = 0.01^2, C2 = 0.03^2 for values in [0, 1]; the
// result is the mean of the SSIM map over all pixels and channels.
#include "glint/core/image.h"

namespace glint {

inline constexpr int kSsimWindow = 11;
inline constexpr double kSsimSigma = 1.5;
inline constexpr double kSsimC1 = 0.01 * 0.01;
inline constexpr double kSsimC2 = 0.03 * 0.03;

// Mean SSIM of interleaved images a and b (width w, height h, c channels). When grad_a is
// given (same layout as a) it receives d(mean SSIM)/d(a). The mean is accumulated in double
// in a fixed order, so the result does not depend on the thread count.
// Instantiated for float (training) and double (evaluation, test references).
template <class T>
double ssim(const T* a, const T* b, int w, int h, int c, T* grad_a = nullptr);

// The same on ImageF; the images must have equal sizes (glint::Error otherwise). grad_a is
// resized to match a.
double ssim(const ImageF& a, const ImageF& b, ImageF* grad_a = nullptr);

}  // namespace glint
