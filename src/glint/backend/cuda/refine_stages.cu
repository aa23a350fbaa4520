#include "glint/backend/cuda/refine_stages.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "glint/backend/cuda/device_algorithms.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/counter_rng.h"
#include "glint/backend/cuda/kernels/densify_kernels.h"
#include "glint/backend/cuda/kernels/mcmc_kernels.h"
#include "glint/backend/cuda/kernels/refine_rows_kernels.h"
#include "glint/backend/cuda/launch.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {
namespace {

// How many of the n flags are set, from the flags and their exclusive prefix sum (two
// values come back).
std::uint32_t flagged(const DeviceBuffer<std::uint32_t>& flag, const DeviceBuffer<std::uint32_t>& pos,
                      std::size_t n) {
  if (n == 0) return 0;
  return download_value(pos.data() + n - 1) + download_value(flag.data() + n - 1);
}

// Flags, their exclusive prefix sum and the count.
std::uint32_t scan_flags(const DeviceBuffer<std::uint32_t>& flag, DeviceBuffer<std::uint32_t>& pos, std::size_t n,
                         DeviceBuffer<unsigned char>& scratch) {
  pos.resize(n);
  exclusive_sum(flag.data(), pos.data(), n, scratch);
  return flagged(flag, pos, n);
}

// The fixed-point weights' exclusive prefix sum and their total.
std::uint64_t scan_weights(RefineScratch& s, std::size_t n) {
  s.before.resize(n);
  exclusive_sum(s.weights.data(), s.before.data(), n, s.scan);
  return download_value(s.before.data() + n - 1) + download_value(s.weights.data() + n - 1);
}

ModelRowSpans row_spans(DeviceModel& model) {
  ModelRowSpans s;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    s.params[gi] = model.params[gi].span();
    s.m[gi] = model.m[gi].span();
    s.v[gi] = model.v[gi].span();
  }
  return s;
}

// `to` = the `rows` rows `plan` describes, from `from`. Statistics: zero everywhere when
// clear_stats, else zero on fresh rows only.
void apply_plan(const DeviceModel& from, DeviceModel& to, const RowPlan& plan, std::size_t rows, bool clear_stats) {
  auto gather = [&](const DeviceBuffer<float>& in, DeviceBuffer<float>& out, std::uint32_t width, bool fresh_zero) {
    out.resize(rows * width);
    launch(gather_rows_kernel, shape_for(out.size()), in.cspan(), out.span(), width, plan, fresh_zero ? 1u : 0u);
  };
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    const std::uint32_t w = group_width(g);
    gather(from.params[gi], to.params[gi], w, false);
    gather(from.m[gi], to.m[gi], w, true);
    gather(from.v[gi], to.v[gi], w, true);
  }
  DeviceBuffer<float> DeviceModel::*stats[3] = {&DeviceModel::grad_accum, &DeviceModel::grad_count,
                                                &DeviceModel::max_radii};
  for (auto member : stats) {
    if (clear_stats) {
      (to.*member).resize(rows);
      clear(to.*member);
    } else {
      gather(from.*member, to.*member, 1, true);
    }
  }
  to.n = rows;
}

// Samples `count` rows with probability weight / total into s.samples, counting in s.times
// how often each row was drawn.
void sample(RefineScratch& s, std::size_t n, std::uint64_t total, std::size_t count, std::uint64_t key) {
  s.samples.resize(count);
  s.times.resize(n);
  clear(s.times);
  launch(mcmc_sample_kernel, shape_for(count), s.before.cspan(), total, key, s.samples.span(), s.times.span());
}

// The sampled rows' new opacity and scales (train/mcmc.cpp's relocated_params), per row.
RelocatedSpans relocated_params(DeviceModel& model, const McmcOptions& o, RefineScratch& s) {
  const std::size_t n = model.n;
  s.logit.resize(n);
  s.log_scale.resize(3 * n);
  const RelocatedSpans r{s.logit.span(), s.log_scale.span()};
  launch(mcmc_relocated_kernel, shape_for(n), s.times.cspan(), model.params[kOpacity].cspan(),
         model.params[kLogScales].cspan(), o.min_opacity, r);
  return r;
}

}  // namespace

DensifyReport device_densify_and_prune(DeviceModel& model, DeviceModel& spare, double extent, const DensifyOptions& o,
                                       bool prune_large, long step, Rng& rng, RefineScratch& s) {
  DensifyReport rep;
  rep.densified = true;
  const std::size_t n = model.n;
  if (n == 0) return rep;
  const auto n32 = static_cast<std::uint32_t>(n);
  const float dense_log = static_cast<float>(std::log(o.percent_dense * extent));
  s.flag_a.resize(n);
  s.flag_b.resize(n);
  launch(densify_classify_kernel, shape_for(n), model.grad_accum.cspan(), model.grad_count.cspan(),
         model.params[kLogScales].cspan(), o.grad_threshold, dense_log, s.flag_a.span(), s.flag_b.span());
  const std::uint32_t clones = scan_flags(s.flag_a, s.pos_a, n, s.scan);
  const std::uint32_t splits = scan_flags(s.flag_b, s.pos_b, n, s.scan);
  rep.cloned = clones;
  rep.split = splits;
  // split_splats splits nothing (and removes no parent) without children
  const std::uint32_t children = splits > 0 && o.split_count > 0 ? static_cast<std::uint32_t>(o.split_count) : 0;
  if (children == 0) clear(s.flag_b);
  const std::uint32_t parents = children > 0 ? splits : 0;
  const GrownLayout layout{s.flag_a.cspan(), s.pos_a.cspan(), s.flag_b.cspan(), s.pos_b.cspan(),
                           n32,              clones,          parents,         children};
  const std::size_t grown = n + clones + std::size_t{children} * parents;
  check_size("rows in a densification", grown, kMaxRows);  // the grown rows' 32-bit indices
  s.source.resize(grown);
  launch(densify_grown_kernel, shape_for(n), layout, s.source.span());

  const float log_div = std::log(o.split_scale_divisor);
  const PruneTest test{o.min_opacity,
                       o.max_screen_radius,
                       o.max_world_scale > 0.f ? static_cast<float>(std::log(o.max_world_scale * extent)) : 0.f,
                       log_div,
                       prune_large ? 1u : 0u,
                       prune_large && o.max_world_scale > 0.f ? 1u : 0u};
  s.keep.resize(grown);
  launch(densify_keep_kernel, shape_for(grown), layout, s.source.cspan(), model.params[kOpacity].cspan(),
         model.params[kLogScales].cspan(), model.max_radii.cspan(), test, s.keep.span());
  const std::uint32_t kept = scan_flags(s.keep, s.keep_pos, grown, s.scan);
  rep.pruned = grown - parents - kept;
  check_size("splats", kept, kMaxSplats);  // before the new model's arrays
  s.out_rows.resize(kept);
  launch(list_flagged_kernel, shape_for(grown), s.keep.cspan(), s.keep_pos.cspan(), s.out_rows.span());

  const RowPlan plan{s.out_rows.cspan(), s.source.cspan(), n32};
  apply_plan(model, spare, plan, kept, true);
  if (children > 0) {
    const std::uint64_t key = counter_key(rng.next_u64(), step);
    launch(split_children_kernel, shape_for(kept), plan, n32 + clones, key, log_div, model.params[kMeans].cspan(),
           model.params[kLogScales].cspan(), model.params[kQuats].cspan(), spare.params[kMeans].span(),
           spare.params[kLogScales].span());
  }
  check_launches("densify");
  std::swap(model, spare);
  return rep;
}

void device_reset_opacity(DeviceModel& model, float max_opacity) {
  const float cap_logit = std::log(max_opacity / (1.f - max_opacity));
  launch(opacity_cap_kernel, shape_for(model.n), model.params[kOpacity].span(), cap_logit);
  clear(model.m[kOpacity]);
  clear(model.v[kOpacity]);
  check_launches("opacity reset");
}

void device_mcmc_noise(DeviceModel& model, float means_lr, const McmcOptions& o, std::uint64_t key) {
  const NoiseParams p{key, o.noise_lr * means_lr, o.noise_k, o.noise_t};
  launch(mcmc_noise_kernel, shape_for(model.n), model.params[kMeans].span(), model.params[kLogScales].cspan(),
         model.params[kQuats].cspan(), model.params[kOpacity].cspan(), p);
  check_launches("mcmc noise");
}

std::size_t device_relocate_dead(DeviceModel& model, const McmcOptions& o, std::uint64_t key, RefineScratch& s) {
  const std::size_t n = model.n;
  if (n == 0) return 0;
  s.weights.resize(n);
  s.flag_a.resize(n);
  launch(mcmc_weights_kernel, shape_for(n), model.params[kOpacity].cspan(), o.min_opacity, 1u, s.weights.span(),
         s.flag_a.span());
  const std::uint32_t dead = scan_flags(s.flag_a, s.pos_a, n, s.scan);
  if (dead == 0 || dead == n) return 0;
  const std::uint64_t total = scan_weights(s, n);
  if (total == 0) return 0;
  sample(s, n, total, dead, key);
  const RelocatedSpans r = relocated_params(model, o, s);
  const ModelRowSpans rows = row_spans(model);
  launch(mcmc_relocate_kernel, shape_for(n), s.flag_a.cspan(), s.pos_a.cspan(), s.samples.cspan(), r, rows);
  launch(mcmc_update_sources_kernel, shape_for(n), s.times.cspan(), r, rows);
  check_launches("mcmc relocation");
  return dead;
}

std::size_t device_grow(DeviceModel& model, DeviceModel& spare, const McmcOptions& o, std::uint64_t key,
                        RefineScratch& s) {
  const std::size_t n = model.n;
  const std::size_t target =
      std::min(o.max_splats, static_cast<std::size_t>((1.0 + o.growth) * static_cast<double>(n)));
  if (target <= n) return 0;
  check_size("splats", target, kMaxSplats);  // before the new model's arrays
  const std::size_t added = target - n;
  s.weights.resize(n);
  s.flag_a.resize(n);
  launch(mcmc_weights_kernel, shape_for(n), model.params[kOpacity].cspan(), o.min_opacity, 0u, s.weights.span(),
         s.flag_a.span());
  const std::uint64_t total = scan_weights(s, n);
  if (total == 0) return 0;
  sample(s, n, total, added, key);
  const RelocatedSpans r = relocated_params(model, o, s);
  launch(mcmc_update_sources_kernel, shape_for(n), s.times.cspan(), r, row_spans(model));
  // the copies carry the sources' new opacity and scale, zero moments and statistics
  s.source.resize(target);
  launch(append_rows_kernel, shape_for(target), s.samples.cspan(), static_cast<std::uint32_t>(n), s.source.span());
  apply_plan(model, spare, RowPlan{DeviceSpan<const std::uint32_t>{}, s.source.cspan(), static_cast<std::uint32_t>(n)},
             target, false);
  check_launches("mcmc growth");
  std::swap(model, spare);
  return added;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
