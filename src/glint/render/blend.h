#pragma once
// One front-to-back blend step of a splat at a pixel, forward and backward, on plain floats.
// Written branch-free so a loop over the pixels of a tile row vectorises; a skipped step
// contributes exactly nothing (alpha 0 leaves every accumulator bit-identical).
#include "glint/core/hd.h"
#include "glint/render/isa.h"
#include "glint/render/project.h"

namespace glint::render {
inline namespace GLINT_RENDER_NS {

GLINT_HD inline float bits_to_float(int i) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(i);
#else
  union {
    int i;
    float f;
  } u{i};
  return u.f;
#endif
}

// exp(x) = 2^(x log2 e) for x in [-87, 88] (clamped outside): 2^n times a degree-5
// polynomial for 2^f, f in [-1/2, 1/2] (Chebyshev fit, relative error 1.0e-7), made of
// plain arithmetic so it vectorises; identical on every path that compiles it without FMA
// contraction. The CUDA rasterizer compiles it with contraction (--fmad=true): there it
// rounds differently, within the renders' tolerances. Cheaper than the Cephes form (no two-step reduction), which matters because
// the blend kernels evaluate one per splat-pixel pair.
inline constexpr float kExp2C0 = 1.000000075e+00f, kExp2C1 = 6.931471880e-01f, kExp2C2 = 2.402210749e-01f,
                       kExp2C3 = 5.550357114e-02f, kExp2C4 = 9.676031918e-03f, kExp2C5 = 1.339086336e-03f;
GLINT_HD inline float fast_exp(float x) {
  x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);
  const float kMagic = 12582912.f;  // 1.5 * 2^23: adding and subtracting rounds to an integer
  const float t = x * 1.44269504088896341f;
  const float n = (t + kMagic) - kMagic;
  const float f = t - n;
  const float y = ((((kExp2C5 * f + kExp2C4) * f + kExp2C3) * f + kExp2C2) * f + kExp2C1) * f + kExp2C0;
  int e = int(n);
  // 2^n in two halves so that n = 128 or -127 stays representable
  int e1 = e >> 1, e2 = e - e1;
  return y * bits_to_float((e1 + 127) << 23) * bits_to_float((e2 + 127) << 23);
}

// Gaussian exponent at offset (dx, dy) = pixel centre - mean.
template <class T>
GLINT_HD inline T splat_power(T A, T B, T C, T dx, T dy) {
  return T(0.5) * (A * dx * dx + C * dy * dy) + B * dx * dy;
}

// Forward alpha of one step; 0 when the step is skipped (outside the cut or below 1/255).
// Also returns G = exp(-power) and whether the 0.99 clamp was hit.
GLINT_HD inline float blend_alpha(float opacity, float power, float power_cut, float& G, bool& clamped) {
  G = fast_exp(-power);
  float a = opacity * G;
  clamped = a > float(kMaxAlpha);
  a = clamped ? float(kMaxAlpha) : a;
  bool ok = (power <= power_cut) & (a >= float(kMinAlpha));
  return ok ? a : 0.f;
}

// The backward functions below are templated so that the CPU kernels run these very
// functions on eight-lane vectors (T = a vector type; only +, -, * are used).
//
// Backward of one step for one channel c of the blend C = sum_i c_i a_i T_i:
// dC/da_i = c_i T_i - after_i / (1 - a_i), where after_i is what the later steps added.
template <class T>
GLINT_HD inline T blend_dalpha_channel(T c, T t, T after, T inv_one_minus_a) {
  return c * t - after * inv_one_minus_a;
}

// From dL/dalpha of a splat's steps to its 2D parameters: dL/dopacity, dL/dmean2d and
// dL/dconic, summed over the pixels the splat blends in a tile. Per pixel, g is dL/dalpha
// (already 0 where the 0.99 clamp was hit, where alpha does not depend on the parameters,
// or where the step was skipped), d = pixel centre - mean, G = exp(-power) and
// power = A dx^2 / 2 + B dx dy + C dy^2 / 2, so with p = g G:
//   dL/dopacity = p, dL/dpower = -opacity p,
//   dL/dmx = opacity p (A dx + B dy), dL/dmy = opacity p (B dx + C dy),
//   dL/dA = -opacity p dx^2 / 2, dL/dB = -opacity p dx dy, dL/dC = -opacity p dy^2 / 2.
// A, B, C and the opacity are the same for every pixel and factor out of the sums: per pixel
// only the moments of p about the mean are summed (blend_alpha_moments_add), and the
// gradients come from them once per splat and tile (blend_alpha_moments_grad).
template <class T>
struct AlphaMoments {
  T p, px, py, pxx, pxy, pyy;
};
// madd(a, b, c) = a * b + c, fused or not as the caller's kernel rounds its sums.
template <class T, class MulAdd>
GLINT_HD inline void blend_alpha_moments_add(T g, T G, T dx, T dy, AlphaMoments<T>& m, MulAdd madd) {
  const T p = g * G;
  const T px = p * dx, py = p * dy;
  m.p = m.p + p;
  m.px = m.px + px;
  m.py = m.py + py;
  m.pxx = madd(px, dx, m.pxx);
  m.pxy = madd(px, dy, m.pxy);
  m.pyy = madd(py, dy, m.pyy);
}
template <class T>
GLINT_HD inline void blend_alpha_moments_add(T g, T G, T dx, T dy, AlphaMoments<T>& m) {
  blend_alpha_moments_add(g, G, dx, dy, m, [](T a, T b, T c) { return a * b + c; });
}
template <class T>
GLINT_HD inline void blend_alpha_moments_grad(const AlphaMoments<T>& m, T opacity, T A, T B, T C, T& d_opacity,
                                              T& d_mx, T& d_my, T& d_A, T& d_B, T& d_C) {
  d_opacity = m.p;
  d_mx = opacity * (A * m.px + B * m.py);
  d_my = opacity * (B * m.px + C * m.py);
  d_A = -0.5f * opacity * m.pxx;
  d_B = -opacity * m.pxy;
  d_C = -0.5f * opacity * m.pyy;
}

// Depth distortion L = sum_i sum_j w_i w_j |z_i - z_j| (Mip-NeRF 360 / 2DGS) of one pixel,
// with w_i = a_i T_i. Splats blend in depth order, so for j before i |z_i - z_j| = z_i - z_j
// and L = 2 sum_i w_i (z_i A_i - B_i), with A_i = sum_{j<i} w_j = 1 - T_i and
// B_i = sum_{j<i} w_j z_j: one pass, no pairs. L only sees depth differences, so z may be
// taken relative to any per-pixel constant; the CPU kernels use the depth of the pixel's
// first blended splat, which keeps z A_i - B_i from cancelling to rounding noise when the
// depths are large and close together. Templated so that the CPU kernels can run them on
// eight-lane vectors.
//
// Forward: the half-term w_i (z_i A_i - B_i) that step i adds (L is twice their sum).
template <class T>
GLINT_HD inline T distortion_half_step(T w, T z, T a_before, T b_before) {
  return w * (z * a_before - b_before);
}

// Backward, with the pixel's final sums known: dL/dw_i = 2 sum_j w_j |z_i - z_j|, split
// into the earlier splats (z A_i - B_i) and the later ones (b_after - z w_after), where
// w_after = sum_{k>i} w_k = T_{i+1} - T_final and b_after = sum_{k>i} w_k z_k.
template <class T>
GLINT_HD inline T distortion_dw(T z, T a_before, T b_before, T w_after, T b_after) {
  const T h = (z * a_before - b_before) + (b_after - z * w_after);
  return h + h;
}

// dL/dz_i = 2 w_i (sum_{j<i} w_j - sum_{k>i} w_k).
template <class T>
GLINT_HD inline T distortion_dz(T w, T a_before, T w_after) {
  return (w + w) * (a_before - w_after);
}
// Through w_i = a_i T_i, dL/da_k = dw_k T_k - (sum_{i>k} dw_i w_i) / (1 - a_k)
// (blend_dalpha_channel with c = dw_k). L is homogeneous of degree 2 in the weights, so
// sum_i dw_i w_i = 2 L and the suffix sum is 2 L minus a running prefix: front to back,
// like the colour channels.

}  // namespace GLINT_RENDER_NS
}  // namespace glint::render
