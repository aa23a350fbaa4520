#include "glint/train/densify.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "glint/core/math.h"

namespace glint {
namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

float max_log_scale(const std::vector<float>& ls, std::size_t i) {
  return std::max(ls[3 * i], std::max(ls[3 * i + 1], ls[3 * i + 2]));
}

}  // namespace

void accumulate_densify_stats(SplatSet& set, long step, const DensifyOptions& o, std::span<const float> mean2d_grads,
                              std::span<const float> radii, int image_width, int image_height) {
  accumulate_densify_stats_scaled(set, step, o, mean2d_grads, radii, 0.5f * static_cast<float>(image_width),
                                  0.5f * static_cast<float>(image_height));
}

void accumulate_densify_stats_scaled(SplatSet& set, long step, const DensifyOptions& o,
                                     std::span<const float> mean2d_grads, std::span<const float> radii, float sx,
                                     float sy) {
  if (step >= o.densify_until) return;
  const std::size_t n = set.size();
  if (mean2d_grads.size() != 2 * n || radii.size() != n)
    throw std::invalid_argument("densify: " + std::to_string(mean2d_grads.size()) + " mean2d gradients and " +
                                std::to_string(radii.size()) + " radii for " + std::to_string(n) + " splats");
  const long count = static_cast<long>(n);
  // Little work a splat: threads only pay off for millions of splats (a parallel region on
  // a loaded machine can wait long for the second thread).
#pragma omp parallel for schedule(static) if (count >= (1 << 20))
  for (long i = 0; i < count; ++i) {
    if (!(radii[i] > 0.f)) continue;
    float gx = mean2d_grads[2 * i] * sx, gy = mean2d_grads[2 * i + 1] * sy;
    set.grad_accum[i] += std::sqrt(gx * gx + gy * gy);
    set.grad_count[i] += 1.f;
    set.max_radii[i] = std::max(set.max_radii[i], radii[i]);
  }
}

void clone_splats(SplatSet& set, std::span<const std::uint32_t> rows) { set.append_copies(rows); }

std::size_t split_splats(SplatSet& set, std::span<const std::uint32_t> rows, int count, float scale_divisor,
                         Rng& rng) {
  if (rows.empty() || count <= 0) return 0;
  std::vector<std::uint32_t> parents;
  parents.reserve(rows.size() * static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) parents.insert(parents.end(), rows.begin(), rows.end());
  const std::size_t first = set.append_copies(parents);
  GaussianModel& m = set.model;
  const float log_div = std::log(scale_divisor);
  for (std::size_t c = 0; c < parents.size(); ++c) {
    const std::size_t p = parents[c], i = first + c;
    Vec3f s{std::exp(m.log_scales[3 * p]), std::exp(m.log_scales[3 * p + 1]), std::exp(m.log_scales[3 * p + 2])};
    Vec3f z{static_cast<float>(rng.normal()), static_cast<float>(rng.normal()), static_cast<float>(rng.normal())};
    Mat3f R = quat_to_rotmat(load_quat(m.quats.data(), static_cast<long>(p)));
    store3(m.means.data(), static_cast<long>(i), load3(m.means.data(), static_cast<long>(p)) + R * mul(s, z));
    for (int a = 0; a < 3; ++a) m.log_scales[3 * i + a] = m.log_scales[3 * p + a] - log_div;
  }
  std::vector<std::uint8_t> remove(set.size(), 0);
  for (std::uint32_t r : rows) remove[r] = 1;
  set.remove(remove);
  return parents.size();
}

void reset_opacity(SplatSet& set, float max_opacity) {
  const float cap_logit = std::log(max_opacity / (1.f - max_opacity));
  for (float& o : set.model.opacity_logits) {
    // min(sigmoid(o), cap) then logit: for o above the cap that is the cap's logit, and
    // below it the round trip would only add rounding, so keep o.
    if (o > cap_logit) o = cap_logit;
  }
  set.zero_group_moments(kOpacity);
}

DensifyReport densify_and_prune(SplatSet& set, double extent, const DensifyOptions& o, bool prune_large, Rng& rng) {
  DensifyReport rep;
  rep.densified = true;
  const std::size_t n = set.size();
  const float dense_log = static_cast<float>(std::log(o.percent_dense * extent));
  std::vector<std::uint32_t> clone, split;
  for (std::size_t i = 0; i < n; ++i) {
    float c = set.grad_count[i];
    float g = c > 0.f ? set.grad_accum[i] / c : 0.f;  // 3DGS turns 0/0 into 0
    if (!(g >= o.grad_threshold)) continue;
    // Compare in log space: exp(max log scale) <= p * extent, without the exp.
    (max_log_scale(set.model.log_scales, i) <= dense_log ? clone : split).push_back(static_cast<std::uint32_t>(i));
  }
  // Clones first (appended after the originals), then splits of originals only: 3DGS pads
  // the gradients of fresh clones with zeros so they are never split in the same round.
  clone_splats(set, clone);
  rep.cloned = clone.size();
  split_splats(set, split, o.split_count, o.split_scale_divisor, rng);
  rep.split = split.size();

  const std::size_t m = set.size();
  std::vector<std::uint8_t> prune(m, 0);
  const float world_log = o.max_world_scale > 0.f ? static_cast<float>(std::log(o.max_world_scale * extent)) : 0.f;
  for (std::size_t i = 0; i < m; ++i) {
    bool p = sigmoid(set.model.opacity_logits[i]) < o.min_opacity;
    if (prune_large) {
      // Radii of new children are zero here; 3DGS zeroes every splat's max radius before
      // this test (so its screen-size prune never fires), we keep the survivors' radii.
      if (o.max_screen_radius > 0.f && set.max_radii[i] > o.max_screen_radius) p = true;
      if (o.max_world_scale > 0.f && max_log_scale(set.model.log_scales, i) > world_log) p = true;
    }
    if (p) {
      prune[i] = 1;
      ++rep.pruned;
    }
  }
  set.remove(prune);
  set.reset_stats();
  return rep;
}

DensifyReport densify_step(SplatSet& set, long step, double extent, const DensifyOptions& o, Rng& rng) {
  DensifyReport rep;
  if (step >= o.densify_until) return rep;
  if (step > o.densify_from && o.densify_every > 0 && step % o.densify_every == 0) {
    const bool prune_large = step > o.opacity_reset_every;
    rep = densify_and_prune(set, extent, o, prune_large, rng);
  }
  if ((o.opacity_reset_every > 0 && step % o.opacity_reset_every == 0) ||
      (o.white_background && step == o.densify_from)) {
    reset_opacity(set, o.opacity_reset_value);
    rep.opacity_reset = true;
  }
  return rep;
}

}  // namespace glint
