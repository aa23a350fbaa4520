// GLSL copies of train/'s per-value math that the training shaders run, operation for
// operation in train/'s order (train/ssim_math.h, train/adam_value.h); kept equal to the C++
// by tests/vulkan_train_math_test.cpp on randomized inputs.
#ifndef GLINT_TRAIN_MATH_GLSL
#define GLINT_TRAIN_MATH_GLSL

const int kSsimWindow = 11;
const int kSsimRadius = 5;

// ssim_window_sum: taps in mirrored pairs, outermost first, fused multiply-adds (the CPU
// blur's FMA path and the CUDA kernels' fmaf).
float ssim_window_sum(float w[11], float x[11]) {
  float acc = w[0] * (x[0] + x[10]);
  [[unroll]] for (int i = 1; i < kSsimRadius; ++i) acc = fma(w[i], x[i] + x[kSsimWindow - 1 - i], acc);
  return fma(w[kSsimRadius], x[kSsimRadius], acc);
}

// ssim_map_value<true>: one value of the SSIM map and its derivatives w.r.t. mu1, e11, e12.
float ssim_map_value(float m1, float m2, float e11, float e22, float e12, float C1, float C2, out float d_mu1,
                     out float d_e11, out float d_e12) {
  float s11 = e11 - m1 * m1, s22 = e22 - m2 * m2, s12 = e12 - m1 * m2;
  float A1 = 2.0 * m1 * m2 + C1, A2 = 2.0 * s12 + C2;
  float B1 = m1 * m1 + m2 * m2 + C1, B2 = s11 + s22 + C2;
  float inv = 1.0 / (B1 * B2);
  float v = A1 * A2 * inv;
  d_mu1 = inv * (2.0 * m2 * (A2 - A1) + 2.0 * m1 * v * (B1 - B2));
  d_e11 = -v * B1 * inv;
  d_e12 = 2.0 * A1 * inv;
  return v;
}

// ssim_grad_value: d(mean SSIM)/d a from the blurred derivative planes.
float ssim_grad_value(float inv, float m0, float m1, float m2, float a, float b) {
  return inv * (m0 + 2.0 * a * m1 + b * m2);
}

float l1_sign(float d) { return float(d > 0.0) - float(d < 0.0); }

// adam_value: one Adam update, every result `precise` (no contraction: the CPU's
// operations); returns whether p is left non-finite.
bool adam_value(inout float p, float g, inout float m, inout float v, float b1, float a1, float b2, float a2,
                float bc2_sqrt, float eps, float step_size) {
  precise float mj = b1 * m + a1 * g;
  precise float vj = b2 * v + a2 * g * g;
  m = mj;
  v = vj;
  precise float denom = sqrt(vj) / bc2_sqrt + eps;
  precise float pj = p - step_size * (mj / denom);
  p = pj;
  return (floatBitsToUint(pj) & 0x7f800000u) == 0x7f800000u;
}
#endif
