#pragma once
// ADC (train/densify.cpp's densify_and_prune and reset_opacity) on the device, one thread
// a splat or a row, with the CPU's formulas and comparisons: the clone/split decision, the
// grown rows (originals, clones, then split children k-major, as 3DGS appends them), the
// keep test (split parents and pruned rows go), the children's positions and scales, and
// the opacity cap. The children's normals come from counter_rng.h, not the host's
// sequential Rng: the decisions and counts are the CPU's, the children's positions are
// drawn from the same distribution. Built without contraction (--fmad=false), so the
// clone/split decision (a division and comparisons) is the CPU's on a device too; the
// opacity tests go through sigmoid_of's expf, which on a device may differ from glibc's by
// a few ulps: a splat within that of min_opacity may be pruned otherwise there.
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/counter_rng.h"
#include "glint/backend/cuda/kernels/refine_rows_kernels.h"
#include "glint/core/math.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// std::max's result (b when a < b, else a) and train/densify.cpp's sigmoid, in device code.
GLINT_HD inline float max_of(float a, float b) { return a < b ? b : a; }
GLINT_HD inline float max_log_scale_of(const float* ls) { return max_of(ls[0], max_of(ls[1], ls[2])); }
GLINT_HD inline float sigmoid_of(float x) { return 1.f / (1.f + std::exp(-x)); }

// clone[i] / split[i] = 1 for the splats whose mean gradient reaches the threshold, by
// their largest log scale against dense_log.
GLINT_KERNEL void densify_classify_kernel(DeviceSpan<const float> grad_accum, DeviceSpan<const float> grad_count,
                                          DeviceSpan<const float> log_scales, float grad_threshold, float dense_log,
                                          DeviceSpan<std::uint32_t> clone, DeviceSpan<std::uint32_t> split) {
  const std::uint64_t i = thread_index();
  if (i >= grad_accum.size) return;
  const float c = grad_count[i];
  const float g = c > 0.f ? grad_accum[i] / c : 0.f;
  const bool dense = g >= grad_threshold;
  const bool small = max_log_scale_of(log_scales.data + 3 * static_cast<std::size_t>(i)) <= dense_log;
  clone[i] = dense && small ? 1u : 0u;
  split[i] = dense && !small ? 1u : 0u;
}

struct GrownLayout {
  DeviceSpan<const std::uint32_t> clone, clone_pos, split, split_pos;
  std::uint32_t n, clones, splits, children;  // children a split parent becomes
};
static_assert(sizeof(GrownLayout) == 80 && offsetof(GrownLayout, n) == 64);

// source[g] for the grown rows: g < n the splat itself, then its clone, then its children.
GLINT_KERNEL void densify_grown_kernel(GrownLayout l, DeviceSpan<std::uint32_t> source) {
  const std::uint64_t i = thread_index();
  if (i >= l.n) return;
  const auto row = static_cast<std::uint32_t>(i);
  // grown rows: n + clones + children * splits <= kMaxRows (the host checks)
  source[i] = row;
  if (l.clone[i] != 0) source[std::uint64_t{l.n} + l.clone_pos[i]] = row;
  if (l.split[i] != 0)
    for (std::uint32_t k = 0; k < l.children; ++k)
      source[std::uint64_t{l.n} + l.clones + row_element(k, l.splits, l.split_pos[i])] = row;
}

struct PruneTest {
  float min_opacity;
  float max_screen_radius;  // 0: off (and off unless prune_large)
  float world_log;          // log of the largest world scale kept
  float log_div;            // log of the split scale divisor
  std::uint32_t prune_large, test_world;
};
static_assert(sizeof(PruneTest) == 24);

// keep[g] = 1 for the grown rows that survive: not a split parent, and not pruned by the
// opacity, screen-size or world-size tests (new rows have zero radii; children the
// parent's log scales less log_div).
GLINT_KERNEL void densify_keep_kernel(GrownLayout l, DeviceSpan<const std::uint32_t> source,
                                      DeviceSpan<const float> opacity_logits, DeviceSpan<const float> log_scales,
                                      DeviceSpan<const float> max_radii, PruneTest t, DeviceSpan<std::uint32_t> keep) {
  const std::uint64_t g = thread_index();
  if (g >= keep.size) return;
  const std::uint32_t s = source[g];
  if (g < l.n && l.split[g] != 0) {
    keep[g] = 0;
    return;
  }
  bool p = sigmoid_of(opacity_logits[s]) < t.min_opacity;
  if (t.prune_large != 0) {
    const float radius = g < l.n ? max_radii[s] : 0.f;
    if (t.max_screen_radius > 0.f && radius > t.max_screen_radius) p = true;
    const float* ls = log_scales.data + 3 * static_cast<std::size_t>(s);
    const bool child = g >= std::uint64_t{l.n} + l.clones;
    const float ls3[3] = {child ? ls[0] - t.log_div : ls[0], child ? ls[1] - t.log_div : ls[1],
                          child ? ls[2] - t.log_div : ls[2]};
    if (t.test_world != 0 && max_log_scale_of(ls3) > t.world_log) p = true;
  }
  keep[g] = p ? 0u : 1u;
}

// The split children among the new rows: position parent + R(q) (s * z), z standard normal
// (stream: the child's index in append order), log scale the parent's less log_div.
// means / log_scales: the new set's; old_*: the set before the edit.
GLINT_KERNEL void split_children_kernel(RowPlan plan, std::uint32_t first_child, std::uint64_t key, float log_div,
                                        DeviceSpan<const float> old_means, DeviceSpan<const float> old_log_scales,
                                        DeviceSpan<const float> old_quats, DeviceSpan<float> means,
                                        DeviceSpan<float> log_scales) {
  const std::uint64_t o = thread_index();
  if (o >= means.size / 3) return;
  const std::uint32_t g = grown_row(plan, static_cast<std::uint32_t>(o));  // rows <= kMaxSplats
  if (g < first_child) return;
  const std::uint32_t p = plan.grown_source[g];
  const std::uint64_t c = g - first_child;
  const float* ls = old_log_scales.data + 3 * static_cast<std::size_t>(p);
  const Vec3f s{std::exp(ls[0]), std::exp(ls[1]), std::exp(ls[2])};
  const Vec3f z{static_cast<float>(counter_normal(key, c, 0)), static_cast<float>(counter_normal(key, c, 1)),
                static_cast<float>(counter_normal(key, c, 2))};
  const Mat3f R = quat_to_rotmat(load_quat(old_quats.data, static_cast<long>(p)));
  store3(means.data, static_cast<long>(o), load3(old_means.data, static_cast<long>(p)) + R * mul(s, z));
  for (int a = 0; a < 3; ++a) log_scales[row_element(o, 3, static_cast<std::uint32_t>(a))] = ls[a] - log_div;
}

// Opacities capped at cap_logit (train/densify.cpp's reset_opacity, without the logit
// round trip below the cap).
GLINT_KERNEL void opacity_cap_kernel(DeviceSpan<float> opacity_logits, float cap_logit) {
  const std::uint64_t i = thread_index();
  if (i >= opacity_logits.size) return;
  if (opacity_logits[i] > cap_logit) opacity_logits[i] = cap_logit;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
