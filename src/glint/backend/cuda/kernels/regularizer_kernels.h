#pragma once
// Regularisers on the parameters, on the device, one thread a splat, with the per-splat
// formulas of the CPU's (train/geometry_loss.cpp flatten_loss, train/mcmc.cpp
// mcmc_regularizer): each adds its gradient in place and writes its per-splat term, which
// the caller sums in a fixed order (loss_stages.h sum_into).
#include <cmath>
#include <cstdint>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// Flattening: the smallest scale exp(s_k) of each splat, times `scale` (weight / N).
GLINT_KERNEL void flatten_kernel(DeviceSpan<const float> log_scales, double scale, DeviceSpan<float> d_log_scales,
                                 DeviceSpan<double> terms) {
  const std::uint64_t i = thread_index();
  if (i >= terms.size) return;
  const float* s = log_scales.data + 3 * static_cast<std::size_t>(i);
  int k = 0;
  if (s[1] < s[k]) k = 1;
  if (s[2] < s[k]) k = 2;
  const double v = exp(static_cast<double>(s[k]));
  terms[i] = v;
  d_log_scales[row_element(i, 3, static_cast<std::uint32_t>(k))] += static_cast<float>(scale * v);  // d exp(s)/ds = exp(s)
}

struct McmcRegSpans {
  DeviceSpan<const float> opacity_logits, log_scales;
  DeviceSpan<float> d_opacity, d_log_scales;
  DeviceSpan<double> opacity_terms, scale_terms;  // [N] each: sigmoid(o), the sum of the 3 scales
};
static_assert(sizeof(McmcRegSpans) == 96);

// MCMC's opacity and scale L1 terms: go = opacity_reg / N, gs = scale_reg / 3N.
GLINT_KERNEL void mcmc_regularizer_kernel(McmcRegSpans r, float go, float gs) {
  const std::uint64_t i = thread_index();
  if (i >= r.opacity_logits.size) return;
  const float s = 1.f / (1.f + expf(-r.opacity_logits[i]));
  r.opacity_terms[i] = s;
  if (r.d_opacity.size > 0) r.d_opacity[i] += go * s * (1.f - s);
  double sum = 0;
  for (std::uint32_t a = 0; a < 3; ++a) {
    const float e = expf(r.log_scales[row_element(i, 3, a)]);
    sum += e;
    if (r.d_log_scales.size > 0) r.d_log_scales[row_element(i, 3, a)] += gs * e;
  }
  r.scale_terms[i] = sum;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
