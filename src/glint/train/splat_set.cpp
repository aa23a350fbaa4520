#include "glint/train/splat_set.h"

#include <algorithm>
#include <stdexcept>

namespace glint {

SplatSet::SplatSet(GaussianModel m, const AdamOptions& options) : model(std::move(m)), adam(options) {
  const std::size_t n = model.size();
  model.resize(n);  // normalises a model whose arrays disagree with its opacity count
  for (int g = 0; g < kNumParamGroups; ++g) adam.add_group(kParamGroupNames[g], kParamGroupWidths[g], n);
  grad_accum.assign(n, 0.f);
  grad_count.assign(n, 0.f);
  max_radii.assign(n, 0.f);
}

std::vector<float>& SplatSet::param(int group) {
  switch (group) {
    case kMeans: return model.means;
    case kLogScales: return model.log_scales;
    case kQuats: return model.quats;
    case kOpacity: return model.opacity_logits;
    case kShDc: return model.sh_dc;
    case kShRest: return model.sh_rest;
    default: throw std::invalid_argument("splat set: no parameter group " + std::to_string(group));
  }
}

const std::vector<float>& SplatSet::param(int group) const { return const_cast<SplatSet*>(this)->param(group); }

std::vector<SplatArray> SplatSet::arrays() {
  std::vector<SplatArray> out;
  for (int g = 0; g < kNumParamGroups; ++g) out.push_back({kParamGroupNames[g], &param(g), kParamGroupWidths[g]});
  auto& groups = adam.groups();
  for (int g = 0; g < kNumParamGroups && g < static_cast<int>(groups.size()); ++g) {
    out.push_back({"adam_m." + groups[g].name, &groups[g].m, groups[g].width});
    out.push_back({"adam_v." + groups[g].name, &groups[g].v, groups[g].width});
  }
  out.push_back({"grad_accum", &grad_accum, 1});
  out.push_back({"grad_count", &grad_count, 1});
  out.push_back({"max_radii", &max_radii, 1});
  return out;
}

void SplatSet::check_consistent() const {
  const auto& groups = adam.groups();
  if (groups.size() != kNumParamGroups)
    throw std::logic_error("splat set: Adam has " + std::to_string(groups.size()) + " groups, expected " +
                           std::to_string(kNumParamGroups));
  for (int g = 0; g < kNumParamGroups; ++g)
    if (groups[g].name != kParamGroupNames[g] || groups[g].width != kParamGroupWidths[g])
      throw std::logic_error("splat set: Adam group " + std::to_string(g) + " is " + groups[g].name +
                             ", expected " + kParamGroupNames[g]);
  const std::size_t n = size();
  for (const SplatArray& a : const_cast<SplatSet*>(this)->arrays())
    if (a.data->size() != n * static_cast<std::size_t>(a.width))
      throw std::logic_error("splat set: " + a.name + " holds " + std::to_string(a.data->size()) +
                             " values for " + std::to_string(n) + " splats of width " + std::to_string(a.width));
}

void SplatSet::remove(std::span<const std::uint8_t> mask) {
  const std::size_t n = size();
  if (mask.size() != n)
    throw std::invalid_argument("splat set: remove mask has " + std::to_string(mask.size()) + " entries for " +
                                std::to_string(n) + " splats");
  std::vector<std::size_t> keep;
  keep.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (!mask[i]) keep.push_back(i);
  if (keep.size() == n) return;
  for (const SplatArray& a : arrays()) {
    std::vector<float>& d = *a.data;
    const std::size_t w = static_cast<std::size_t>(a.width);
    // In-place compaction: keep[k] >= k, so a row never reads a slot already overwritten.
    for (std::size_t k = 0; k < keep.size(); ++k)
      if (keep[k] != k) std::copy_n(d.begin() + keep[k] * w, w, d.begin() + k * w);
    d.resize(keep.size() * w);
  }
}

std::size_t SplatSet::append_copies(std::span<const std::uint32_t> parents) {
  const std::size_t n = size();
  for (std::uint32_t p : parents)
    if (p >= n) throw std::invalid_argument("splat set: parent " + std::to_string(p) + " of " + std::to_string(n));
  const std::size_t m = parents.size();
  std::vector<SplatArray> all = arrays();
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::vector<float>& d = *all[i].data;
    const std::size_t w = static_cast<std::size_t>(all[i].width);
    const bool is_param = i < kNumParamGroups;
    d.resize((n + m) * w, 0.f);
    if (is_param)
      for (std::size_t k = 0; k < m; ++k) std::copy_n(d.begin() + parents[k] * w, w, d.begin() + (n + k) * w);
  }
  return n;
}

void SplatSet::zero_moments(std::span<const std::uint32_t> rows) {
  for (AdamMoments& g : adam.groups()) {
    const std::size_t w = static_cast<std::size_t>(g.width);
    for (std::uint32_t r : rows) {
      if (static_cast<std::size_t>(r) * w + w > g.m.size())
        throw std::invalid_argument("splat set: zero_moments row " + std::to_string(r) + " out of range");
      std::fill_n(g.m.begin() + r * w, w, 0.f);
      std::fill_n(g.v.begin() + r * w, w, 0.f);
    }
  }
}

void SplatSet::zero_group_moments(int group) {
  AdamMoments& g = adam.groups().at(static_cast<std::size_t>(group));
  std::fill(g.m.begin(), g.m.end(), 0.f);
  std::fill(g.v.begin(), g.v.end(), 0.f);
}

void SplatSet::reset_stats() {
  std::fill(grad_accum.begin(), grad_accum.end(), 0.f);
  std::fill(grad_count.begin(), grad_count.end(), 0.f);
  std::fill(max_radii.begin(), max_radii.end(), 0.f);
}

std::array<AdamParamGroup, kNumParamGroups> SplatSet::param_groups(const GroupGrads& grads, const GroupRates& lrs,
                                                                   int sh_degree) {
  std::array<AdamParamGroup, kNumParamGroups> out;
  for (int g = 0; g < kNumParamGroups; ++g)
    out[g] = {kParamGroupNames[g], param(g).data(), grads[g], size(), kParamGroupWidths[g], lrs[g]};
  const int deg = std::clamp(sh_degree, 0, kMaxShDegree);
  out[kShRest].used_width = 3 * ((deg + 1) * (deg + 1) - 1);
  return out;
}

int SplatSet::adam_step(const GroupGrads& grads, const GroupRates& lrs, const std::uint8_t* visible,
                        int sh_degree) {
  auto groups = param_groups(grads, lrs, sh_degree);
  return adam.step(groups, visible);
}

GroupGrads grads_of(const GaussianModel& g) {
  return {g.means.data(), g.log_scales.data(), g.quats.data(), g.opacity_logits.data(), g.sh_dc.data(),
          g.sh_rest.data()};
}

}  // namespace glint
