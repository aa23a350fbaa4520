#pragma once
// 3DGS-MCMC's refinement (train/mcmc.cpp) on the device, one thread a splat or a sample:
// position noise, the dead/alive split, sampling by opacity and the relocation formula.
// Sampling is multinomial over weights in fixed point (opacity * 2^32, 64-bit integers), so
// the prefix sum is exact and the same in any summation order; a sample is a uniform
// integer below the total, found by binary search in the exclusive prefix sums. Random
// numbers come from counter_rng.h (stream: the splat or the sample index). Built without
// contraction (--fmad=false); the dead test (sigmoid's expf) and the relocation formula
// (pow, sqrt, log in double) use the device's libm there, within a few ulps of glibc's.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/counter_rng.h"
#include "glint/backend/cuda/kernels/densify_kernels.h"
#include "glint/core/math.h"
#include "glint/train/mcmc.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// A sampling weight in fixed point: the opacity (at most 1) times 2^32, truncated; zero for
// anything not positive (NaN included, whose conversion would be undefined).
GLINT_HD inline std::uint64_t fixed_weight(float opacity) {
  return opacity > 0.f ? static_cast<std::uint64_t>(static_cast<double>(opacity) * 4294967296.0) : 0;
}

// train/mcmc.cpp's relocation_opacity and relocation_scale_factor in one, with the same
// operations in the same order; the binomials are built by the exact integer recurrence
// C(r, k + 1) = C(r, k) (r - k) / (k + 1) (every value below 2^53), the table's numbers.
GLINT_HD inline void relocation_of(double opacity, int n, double& o_new, double& factor) {
  n = n < 1 ? 1 : (n > kRelocationMaxN ? kRelocationMaxN : n);
  o_new = 1.0 - std::pow(1.0 - opacity, 1.0 / static_cast<double>(n));
  double denom = 0;
  for (int i = 1; i <= n; ++i) {
    double c = 1;  // C(i - 1, k)
    for (int k = 0; k <= i - 1; ++k) {
      denom += c * ((k % 2 ? -1.0 : 1.0) / std::sqrt(k + 1.0)) * std::pow(o_new, static_cast<double>(k + 1));
      c = c * static_cast<double>(i - 1 - k) / static_cast<double>(k + 1);
    }
  }
  factor = denom > 0 ? opacity / denom : 1.0;
}

struct NoiseParams {
  std::uint64_t key;
  float scale;  // noise_lr * the means' learning rate
  float k, t;   // the gate's slope and threshold
  std::uint32_t pad = 0;
};
static_assert(sizeof(NoiseParams) == 24 && offsetof(NoiseParams, scale) == 8);

// means += gate(opacity) * scale * Sigma z, z standard normal (train/mcmc.cpp's
// mcmc_add_noise, with counter-based normals).
GLINT_KERNEL void mcmc_noise_kernel(DeviceSpan<float> means, DeviceSpan<const float> log_scales,
                                    DeviceSpan<const float> quats, DeviceSpan<const float> opacity_logits,
                                    NoiseParams p) {
  const std::uint64_t i = thread_index();
  if (i >= opacity_logits.size) return;
  const float op = sigmoid_of(opacity_logits[i]);
  const float gate = 1.f / (1.f + std::exp(-p.k * ((1.f - op) - p.t)));
  const Vec3f z{static_cast<float>(counter_normal(p.key, i, 0)), static_cast<float>(counter_normal(p.key, i, 1)),
                static_cast<float>(counter_normal(p.key, i, 2))};
  const Mat3f R = quat_to_rotmat(load_quat(quats.data, static_cast<long>(i)));
  const float* ls = log_scales.data + 3 * static_cast<std::size_t>(i);
  const Vec3f s{std::exp(ls[0]), std::exp(ls[1]), std::exp(ls[2])};
  const Vec3f rz = transpose(R) * z;
  const Vec3f cz = R * mul(mul(s, s), rz);
  store3(means.data, static_cast<long>(i), load3(means.data, static_cast<long>(i)) + (gate * p.scale) * cz);
}

// weight[i]: the fixed-point opacity of splat i, zero for the dead (opacity <= min_opacity)
// when exclude_dead; dead[i] = 1 for those.
GLINT_KERNEL void mcmc_weights_kernel(DeviceSpan<const float> opacity_logits, float min_opacity,
                                      std::uint32_t exclude_dead, DeviceSpan<std::uint64_t> weight,
                                      DeviceSpan<std::uint32_t> dead) {
  const std::uint64_t i = thread_index();
  if (i >= opacity_logits.size) return;
  const float op = sigmoid_of(opacity_logits[i]);
  const bool is_dead = op <= min_opacity;
  dead[i] = is_dead ? 1u : 0u;
  weight[i] = exclude_dead != 0 && is_dead ? 0 : fixed_weight(op);
}

// The row whose weight interval [before[i], before[i] + w_i) holds u (u < the total): the
// last i with before[i] <= u, which has a positive weight.
GLINT_HD inline std::uint32_t find_weighted(const std::uint64_t* before, std::uint64_t n, std::uint64_t u) {
  std::uint64_t lo = 0, hi = n;  // the first index with before > u lies in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (before[mid] <= u) lo = mid + 1;
    else hi = mid;
  }
  return static_cast<std::uint32_t>(lo - 1);  // rows <= kMaxSplats
}

// samples[k] = a row drawn with probability weight / total; times[row] += 1.
GLINT_KERNEL void mcmc_sample_kernel(DeviceSpan<const std::uint64_t> before, std::uint64_t total, std::uint64_t key,
                                     DeviceSpan<std::uint32_t> samples, DeviceSpan<std::uint32_t> times) {
  const std::uint64_t k = thread_index();
  if (k >= samples.size) return;
  const std::uint32_t r = find_weighted(before.data, before.size, counter_below(key, k, 0, total));
  samples[k] = r;
  atomicAdd(&times.data[r], 1u);
}

struct RelocatedSpans {
  DeviceSpan<float> logit, log_scale;  // per splat (1 and 3 floats), for the sampled ones
};
static_assert(sizeof(RelocatedSpans) == 32);

// For every sampled splat: its new opacity logit and log scales, shared by it and its
// copies (train/mcmc.cpp's relocated_params).
GLINT_KERNEL void mcmc_relocated_kernel(DeviceSpan<const std::uint32_t> times, DeviceSpan<const float> opacity_logits,
                                        DeviceSpan<const float> log_scales, float min_opacity, RelocatedSpans out) {
  const std::uint64_t i = thread_index();
  if (i >= times.size || times[i] == 0) return;
  const double op = sigmoid_of(opacity_logits[i]);
  double o_new = 0, factor = 1;
  relocation_of(op, static_cast<int>(times[i]) + 1, o_new, factor);
  const double max_o = 1.0 - 1.1920928955078125e-07;  // 1 - float epsilon
  o_new = o_new < min_opacity ? static_cast<double>(min_opacity) : (max_o < o_new ? max_o : o_new);
  out.logit[i] = static_cast<float>(std::log(o_new / (1.0 - o_new)));
  const float log_f = static_cast<float>(std::log(factor));
  for (std::uint32_t a = 0; a < 3; ++a) out.log_scale[row_element(i, 3, a)] = log_scales[row_element(i, 3, a)] + log_f;
}

// kParamGroupWidths for device code.
GLINT_HD constexpr std::uint32_t group_width(int g) {
  return g == kQuats ? 4u : g == kOpacity ? 1u : g == kShRest ? 3u * kShRestCoeffs : 3u;
}
static_assert(int(group_width(kMeans)) == kParamGroupWidths[kMeans] &&
              int(group_width(kLogScales)) == kParamGroupWidths[kLogScales] &&
              int(group_width(kQuats)) == kParamGroupWidths[kQuats] &&
              int(group_width(kOpacity)) == kParamGroupWidths[kOpacity] &&
              int(group_width(kShDc)) == kParamGroupWidths[kShDc] &&
              int(group_width(kShRest)) == kParamGroupWidths[kShRest]);

struct ModelRowSpans {
  DeviceSpan<float> params[kNumParamGroups], m[kNumParamGroups], v[kNumParamGroups];
};
static_assert(sizeof(ModelRowSpans) == 3 * kNumParamGroups * sizeof(DeviceSpan<float>));

GLINT_HD inline void zero_moments_of(const ModelRowSpans& s, std::uint64_t row) {
  for (int g = 0; g < kNumParamGroups; ++g) {
    const std::uint32_t w = group_width(g);
    for (std::uint32_t c = 0; c < w; ++c) s.m[g][row_element(row, w, c)] = s.v[g][row_element(row, w, c)] = 0.f;
  }
}

// Every dead splat takes the parameters of its sample (the k-th dead splat the k-th sample;
// pos: the dead flags' exclusive prefix sum), the sample's new opacity and scales, and
// zero moments.
GLINT_KERNEL void mcmc_relocate_kernel(DeviceSpan<const std::uint32_t> dead, DeviceSpan<const std::uint32_t> pos,
                                       DeviceSpan<const std::uint32_t> samples, RelocatedSpans relocated,
                                       ModelRowSpans s) {
  const std::uint64_t d = thread_index();
  if (d >= dead.size || dead[d] == 0) return;
  const std::uint32_t src = samples[pos[d]];
  for (int g = 0; g < kNumParamGroups; ++g) {
    const std::uint32_t w = group_width(g);
    for (std::uint32_t c = 0; c < w; ++c) s.params[g][row_element(d, w, c)] = s.params[g][row_element(src, w, c)];
  }
  s.params[kOpacity][d] = relocated.logit[src];
  for (std::uint32_t a = 0; a < 3; ++a)
    s.params[kLogScales][row_element(d, 3, a)] = relocated.log_scale[row_element(src, 3, a)];
  zero_moments_of(s, d);
}

// Every sampled splat takes its new opacity and scales, and zero moments.
GLINT_KERNEL void mcmc_update_sources_kernel(DeviceSpan<const std::uint32_t> times, RelocatedSpans relocated,
                                             ModelRowSpans s) {
  const std::uint64_t i = thread_index();
  if (i >= times.size || times[i] == 0) return;
  s.params[kOpacity][i] = relocated.logit[i];
  for (std::uint32_t a = 0; a < 3; ++a) s.params[kLogScales][row_element(i, 3, a)] = relocated.log_scale[row_element(i, 3, a)];
  zero_moments_of(s, i);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
