#pragma once
// SSIM's per-value math (ssim.h's definition), shared by the CPU loss (ssim.cpp) and the
// CUDA backend's loss kernels (backend/cuda/kernels/loss_kernels.h): the window, one
// blurred value from the 11 values under it, one value of the SSIM map with its
// derivatives, and one value of the gradient. GLINT_HD functions on plain values only.
#include <array>
#include <cmath>

#include "glint/core/hd.h"

namespace glint {

inline constexpr int kSsimWindow = 11;
inline constexpr int kSsimRadius = kSsimWindow / 2;
inline constexpr double kSsimSigma = 1.5;
inline constexpr double kSsimC1 = 0.01 * 0.01;
inline constexpr double kSsimC2 = 0.03 * 0.03;

// The normalised Gaussian window, computed in double and rounded once.
template <class T>
std::array<T, kSsimWindow> ssim_window_weights() {
  std::array<double, kSsimWindow> g{};
  double sum = 0;
  for (int i = 0; i < kSsimWindow; ++i) {
    const double d = i - kSsimRadius;
    g[i] = std::exp(-d * d / (2 * kSsimSigma * kSsimSigma));
    sum += g[i];
  }
  std::array<T, kSsimWindow> out{};
  for (int i = 0; i < kSsimWindow; ++i) out[i] = static_cast<T>(g[i] / sum);
  return out;
}

// One blurred value from the 11 values x[0..10] under the window. The window is symmetric
// (w[i] == w[10 - i] exactly): taps in mirrored pairs, outermost (smallest weight) first,
// six products instead of eleven. madd(a, b, c) is a * b + c, fused or not as the caller
// builds it.
template <class T, class MulAdd>
GLINT_HD inline T ssim_window_sum(const T* w, const T* x, MulAdd madd) {
  T acc = w[0] * (x[0] + x[10]);
  for (int i = 1; i < kSsimRadius; ++i) acc = madd(w[i], x[i] + x[kSsimWindow - 1 - i], acc);
  return madd(w[kSsimRadius], x[kSsimRadius], acc);
}

// One value of the SSIM map from the blurred moments mu1, mu2, e11 = blur(a a),
// e22 = blur(b b), e12 = blur(a b); with kGrad also its derivatives w.r.t. mu1, e11 and e12
// (ssim = A1 A2 / (B1 B2), s11 = e11 - mu1^2, s12 = e12 - mu1 mu2).
template <bool kGrad, class T>
GLINT_HD inline T ssim_map_value(T m1, T m2, T e11, T e22, T e12, T C1, T C2, T* d_mu1, T* d_e11, T* d_e12) {
  T s11 = e11 - m1 * m1, s22 = e22 - m2 * m2, s12 = e12 - m1 * m2;
  T A1 = 2 * m1 * m2 + C1, A2 = 2 * s12 + C2;
  T B1 = m1 * m1 + m2 * m2 + C1, B2 = s11 + s22 + C2;
  // one division a value, 1 / (B1 B2), from which 1 / B1 = B2 / (B1 B2) and so on: five
  // divisions would make the loss slower
  const T inv = T(1) / (B1 * B2);
  const T v = A1 * A2 * inv;
  if constexpr (kGrad) {
    *d_mu1 = inv * (2 * m2 * (A2 - A1) + 2 * m1 * v * (B1 - B2));
    *d_e11 = -v * B1 * inv;
    *d_e12 = 2 * A1 * inv;
  }
  return v;
}

// d(mean SSIM)/d a at one value from the blurred derivative planes m0 = blur(d_mu1),
// m1 = blur(d_e11), m2 = blur(d_e12) (the blur is its own transpose), inv = 1 / count.
template <class T>
GLINT_HD inline T ssim_grad_value(T inv, T m0, T m1, T m2, T a, T b) {
  return inv * (m0 + 2 * a * m1 + b * m2);
}

// sign(d) with sign(0) = 0: the L1 term's derivative.
template <class T>
GLINT_HD inline T l1_sign(T d) {
  return static_cast<T>(d > 0) - static_cast<T>(d < 0);
}

}  // namespace glint
