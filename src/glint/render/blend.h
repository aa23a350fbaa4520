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

// exp(x) for x in [-87, 88] (clamped outside), ~1 ulp (Cephes expf polynomial), made of
// plain arithmetic so it vectorises; identical on every path that compiles it without FMA
// contraction.
GLINT_HD inline float fast_exp(float x) {
  x = x < -87.f ? -87.f : (x > 88.f ? 88.f : x);
  const float kMagic = 12582912.f;  // 1.5 * 2^23: adding and subtracting rounds to an integer
  float n = (x * 1.44269504088896341f + kMagic) - kMagic;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float z = r * r;
  float y = ((((1.9875691500E-4f * r + 1.3981999507E-3f) * r + 8.3334519073E-3f) * r + 4.1665795894E-2f) * r +
             1.6666665459E-1f) * r + 5.0000001201E-1f;
  y = y * z + r + 1.f;
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

// Backward of one step for one channel c of the blend C = sum_i c_i a_i T_i:
// dC/da_i = c_i T_i - after_i / (1 - a_i), where after_i is what the later steps added.
GLINT_HD inline float blend_dalpha_channel(float c, float T, float after, float inv_one_minus_a) {
  return c * T - after * inv_one_minus_a;
}

// From dL/dalpha of a step to the splat's 2D parameters: dL/dopacity, dL/dmean2d, dL/dconic.
// d = pixel centre - mean. When the 0.99 clamp was hit alpha does not depend on them.
GLINT_HD inline void blend_alpha_vjp(float dL_da, float opacity, float G, bool clamped, float A, float B,
                                     float C, float dx, float dy, float& d_opacity, float& d_mx, float& d_my,
                                     float& d_A, float& d_B, float& d_C) {
  float g = clamped ? 0.f : dL_da;
  d_opacity = G * g;
  float dpow = -opacity * G * g;
  d_mx = -dpow * (A * dx + B * dy);
  d_my = -dpow * (B * dx + C * dy);
  d_A = 0.5f * dpow * dx * dx;
  d_B = dpow * dx * dy;
  d_C = 0.5f * dpow * dy * dy;
}

}  // namespace GLINT_RENDER_NS
}  // namespace glint::render
