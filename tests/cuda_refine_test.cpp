// The device's refinement stages (backend/cuda/refine_stages.h) and coarse-to-fine's
// downscale (target_stage.h) under the emulator: each against a slow host reference of the
// same algorithm (the same counter-based random numbers, SplatSet's row edits), exactly;
// the decisions that draw nothing against train/'s CPU code, exactly (the emulator runs
// glibc's expf and log; a device's differ by a few ulps, which tests/gpu allows for); the
// sampler against its weights, statistically; and two runs against each other, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "glint/backend/cuda/device_algorithms.h"
#include "glint/backend/cuda/device_model.h"
#include "glint/backend/cuda/kernels/counter_rng.h"
#include "glint/backend/cuda/kernels/mcmc_kernels.h"
#include "glint/backend/cuda/launch.h"
#include "glint/backend/cuda/target_stage.h"
#include "glint/backend/cuda/refine_stages.h"
#include "glint/core/math.h"
#include "glint/io/image_ops.h"
#include "glint/train/densify.h"
#include "glint/train/mcmc.h"

using namespace glint;

namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

// A set of n splats with every array filled from `seed` (moments and statistics too), so
// that lost or misplaced rows show. About a third are dense enough to densify, their scales
// either side of the clone/split boundary of extent 1; some are nearly transparent.
SplatSet random_set(std::size_t n, std::uint64_t seed) {
  Rng r(seed);
  GaussianModel m;
  m.sh_degree = 1;
  m.means.resize(3 * n);
  m.log_scales.resize(3 * n);
  m.quats.resize(4 * n);
  m.opacity_logits.resize(n);
  m.sh_dc.resize(3 * n);
  m.sh_rest.resize(3 * kShRestCoeffs * n);
  for (float& v : m.means) v = static_cast<float>(r.normal());
  for (float& v : m.log_scales) v = static_cast<float>(std::log(0.01) + 1.5 * r.normal());
  for (std::size_t i = 0; i < n; ++i) {
    float q[4], norm = 0;
    for (float& c : q) {
      c = static_cast<float>(r.normal());
      norm += c * c;
    }
    for (int k = 0; k < 4; ++k) m.quats[4 * i + static_cast<std::size_t>(k)] = q[k] / std::sqrt(norm);
  }
  for (float& v : m.opacity_logits) v = static_cast<float>(r.uniform() < 0.2 ? -7.0 + r.normal() : 2.0 * r.normal());
  for (float& v : m.sh_dc) v = static_cast<float>(r.normal());
  for (float& v : m.sh_rest) v = static_cast<float>(0.1 * r.normal());
  SplatSet s(std::move(m));
  for (AdamMoments& g : s.adam.groups()) {
    for (float& v : g.m) v = static_cast<float>(r.normal());
    for (float& v : g.v) v = static_cast<float>(r.uniform());
    g.step = 17;
  }
  for (std::size_t i = 0; i < n; ++i) {
    s.grad_count[i] = static_cast<float>(r.below(4));
    s.grad_accum[i] = s.grad_count[i] * static_cast<float>(r.uniform() < 0.35 ? 3e-4 : 1e-4);
    s.max_radii[i] = static_cast<float>(30.0 * r.uniform());
  }
  return s;
}

void expect_same_set(const SplatSet& a, const SplatSet& b) {
  ASSERT_EQ(a.size(), b.size());
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_EQ(a.param(g), b.param(g)) << kParamGroupNames[gi];
    EXPECT_EQ(a.adam.groups()[gi].m, b.adam.groups()[gi].m) << "m of " << kParamGroupNames[gi];
    EXPECT_EQ(a.adam.groups()[gi].v, b.adam.groups()[gi].v) << "v of " << kParamGroupNames[gi];
  }
  EXPECT_EQ(a.grad_accum, b.grad_accum);
  EXPECT_EQ(a.grad_count, b.grad_count);
  EXPECT_EQ(a.max_radii, b.max_radii);
}

// The device model's arrays into a copy of `like` (whose scalars it keeps).
SplatSet downloaded(const cuda::DeviceModel& d, SplatSet like) {
  d.download_into(like);
  return like;
}

// densify_and_prune (train/densify.cpp) with the children's normals from counter_rng.h:
// the device's algorithm, written as the CPU's is.
DensifyReport reference_densify(SplatSet& set, double extent, const DensifyOptions& o, bool prune_large,
                                std::uint64_t key) {
  DensifyReport rep;
  rep.densified = true;
  const std::size_t n = set.size();
  const float dense_log = static_cast<float>(std::log(o.percent_dense * extent));
  auto max_ls = [&](std::size_t i) {
    const float* ls = &set.model.log_scales[3 * i];
    return std::max(ls[0], std::max(ls[1], ls[2]));
  };
  std::vector<std::uint32_t> clone, split;
  for (std::size_t i = 0; i < n; ++i) {
    const float c = set.grad_count[i];
    const float g = c > 0.f ? set.grad_accum[i] / c : 0.f;
    if (!(g >= o.grad_threshold)) continue;
    (max_ls(i) <= dense_log ? clone : split).push_back(static_cast<std::uint32_t>(i));
  }
  set.append_copies(clone);
  std::vector<std::uint32_t> parents;
  for (int k = 0; k < o.split_count; ++k) parents.insert(parents.end(), split.begin(), split.end());
  const std::size_t first = set.append_copies(parents);
  const float log_div = std::log(o.split_scale_divisor);
  GaussianModel& m = set.model;
  for (std::size_t c = 0; c < parents.size(); ++c) {
    const std::size_t p = parents[c], i = first + c;
    const Vec3f s{std::exp(m.log_scales[3 * p]), std::exp(m.log_scales[3 * p + 1]), std::exp(m.log_scales[3 * p + 2])};
    const Vec3f z{static_cast<float>(cuda::counter_normal(key, c, 0)), static_cast<float>(cuda::counter_normal(key, c, 1)),
                  static_cast<float>(cuda::counter_normal(key, c, 2))};
    const Mat3f R = quat_to_rotmat(load_quat(m.quats.data(), static_cast<long>(p)));
    store3(m.means.data(), static_cast<long>(i), load3(m.means.data(), static_cast<long>(p)) + R * mul(s, z));
    for (int a = 0; a < 3; ++a) m.log_scales[3 * i + a] = m.log_scales[3 * p + a] - log_div;
  }
  std::vector<std::uint8_t> parent(set.size(), 0);
  for (std::uint32_t r : split) parent[r] = 1;
  set.remove(parent);
  rep.cloned = clone.size();
  rep.split = split.size();
  const float world_log = static_cast<float>(std::log(o.max_world_scale * extent));
  std::vector<std::uint8_t> prune(set.size(), 0);
  for (std::size_t i = 0; i < set.size(); ++i) {
    bool p = sigmoid(m.opacity_logits[i]) < o.min_opacity;
    if (prune_large && (set.max_radii[i] > o.max_screen_radius || max_ls(i) > world_log)) p = true;
    prune[i] = p ? 1 : 0;
    rep.pruned += p ? 1 : 0;
  }
  set.remove(prune);
  set.reset_stats();
  return rep;
}

// Samples by the fixed-point weights, by a linear search through their running sum.
std::vector<std::uint32_t> reference_samples(const std::vector<std::uint64_t>& w, std::size_t count,
                                             std::uint64_t key) {
  std::uint64_t total = 0;
  for (std::uint64_t x : w) total += x;
  std::vector<std::uint32_t> out;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t u = cuda::counter_below(key, k, 0, total);
    std::uint64_t run = 0;
    std::size_t i = 0;
    while (run + w[i] <= u) run += w[i++];
    out.push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

// relocated_params and the row edits of train/mcmc.cpp, for the given samples.
void reference_take(SplatSet& set, const std::vector<std::uint32_t>& src, const McmcOptions& o,
                    std::vector<float>& logit, std::vector<float>& log_scale) {
  std::vector<int> times(set.size(), 0);
  for (std::uint32_t s : src) ++times[s];
  logit.assign(src.size(), 0.f);
  log_scale.assign(3 * src.size(), 0.f);
  for (std::size_t k = 0; k < src.size(); ++k) {
    const double op = sigmoid(set.model.opacity_logits[src[k]]);
    const double o_new = std::clamp(relocation_opacity(op, times[src[k]] + 1), double(o.min_opacity),
                                    1.0 - std::numeric_limits<float>::epsilon());
    logit[k] = static_cast<float>(std::log(o_new / (1.0 - o_new)));
    const float log_f = static_cast<float>(std::log(relocation_scale_factor(op, times[src[k]] + 1)));
    for (int a = 0; a < 3; ++a) log_scale[3 * k + a] = set.model.log_scales[3 * src[k] + a] + log_f;
  }
}

std::size_t reference_relocate(SplatSet& set, const McmcOptions& o, std::uint64_t key) {
  const std::size_t n = set.size();
  std::vector<std::uint32_t> dead;
  std::vector<std::uint64_t> w(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const float op = sigmoid(set.model.opacity_logits[i]);
    if (op <= o.min_opacity) dead.push_back(static_cast<std::uint32_t>(i));
    else w[i] = cuda::fixed_weight(op);
  }
  if (dead.empty() || dead.size() == n) return 0;
  const std::vector<std::uint32_t> src = reference_samples(w, dead.size(), key);
  std::vector<float> logit, log_scale;
  reference_take(set, src, o, logit, log_scale);
  for (int g = 0; g < kNumParamGroups; ++g) {
    std::vector<float>& p = set.param(g);
    const auto wd = static_cast<std::size_t>(kParamGroupWidths[static_cast<std::size_t>(g)]);
    for (std::size_t k = 0; k < dead.size(); ++k) std::copy_n(p.begin() + src[k] * wd, wd, p.begin() + dead[k] * wd);
  }
  for (std::size_t k = 0; k < dead.size(); ++k)
    for (std::uint32_t row : {dead[k], src[k]}) {
      set.model.opacity_logits[row] = logit[k];
      for (int a = 0; a < 3; ++a) set.model.log_scales[3 * row + a] = log_scale[3 * k + a];
    }
  set.zero_moments(src);
  set.zero_moments(dead);
  return dead.size();
}

std::size_t reference_grow(SplatSet& set, const McmcOptions& o, std::uint64_t key) {
  const std::size_t n = set.size();
  const std::size_t target = std::min(o.max_splats, static_cast<std::size_t>((1.0 + o.growth) * static_cast<double>(n)));
  if (target <= n) return 0;
  std::vector<std::uint64_t> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = cuda::fixed_weight(sigmoid(set.model.opacity_logits[i]));
  const std::vector<std::uint32_t> src = reference_samples(w, target - n, key);
  std::vector<float> logit, log_scale;
  reference_take(set, src, o, logit, log_scale);
  for (std::size_t k = 0; k < src.size(); ++k) {
    set.model.opacity_logits[src[k]] = logit[k];
    for (int a = 0; a < 3; ++a) set.model.log_scales[3 * src[k] + a] = log_scale[3 * k + a];
  }
  set.zero_moments(src);
  set.append_copies(src);
  return src.size();
}

DensifyOptions densify_options() {
  DensifyOptions o;
  o.max_screen_radius = 25.f;
  o.max_world_scale = 0.5f;
  return o;
}

}  // namespace

TEST(CudaRefine, DensifyMatchesTheHostReferenceExactly) {
  const SplatSet init = random_set(600, 1);
  const DensifyOptions o = densify_options();
  for (bool prune_large : {false, true}) {
    cuda::DeviceModel dev, spare;
    cuda::RefineScratch scratch;
    dev.upload_from(init);
    Rng rng(9), ref_rng(9);
    const DensifyReport d = cuda::device_densify_and_prune(dev, spare, 1.0, o, prune_large, 700, rng, scratch);
    SplatSet ref = init;
    const DensifyReport r = reference_densify(ref, 1.0, o, prune_large, cuda::counter_key(ref_rng.next_u64(), 700));
    EXPECT_TRUE(rng == ref_rng);  // one draw, as it split
    EXPECT_EQ(d.cloned, r.cloned);
    EXPECT_EQ(d.split, r.split);
    EXPECT_EQ(d.pruned, r.pruned);
    EXPECT_GT(r.cloned, 10u);
    EXPECT_GT(r.split, 20u);
    EXPECT_GT(r.pruned, 20u);
    ASSERT_EQ(dev.n, ref.size());
    expect_same_set(downloaded(dev, init), ref);
  }
}

// What to clone, split and prune draws nothing: the CPU's decisions, counts and rows; only
// the split children's positions differ.
TEST(CudaRefine, DensifyDecisionsAreTheCpus) {
  const SplatSet init = random_set(600, 2);
  const DensifyOptions o = densify_options();
  cuda::DeviceModel dev, spare;
  cuda::RefineScratch scratch;
  dev.upload_from(init);
  Rng rng(4), cpu_rng(4);
  const DensifyReport d = cuda::device_densify_and_prune(dev, spare, 1.0, o, true, 700, rng, scratch);
  SplatSet cpu = init;
  const DensifyReport c = densify_and_prune(cpu, 1.0, o, true, cpu_rng);
  EXPECT_EQ(d.cloned, c.cloned);
  EXPECT_EQ(d.split, c.split);
  EXPECT_EQ(d.pruned, c.pruned);
  ASSERT_EQ(dev.n, cpu.size());
  const SplatSet got = downloaded(dev, init);
  for (int g = kLogScales; g < kNumParamGroups; ++g) EXPECT_EQ(got.param(g), cpu.param(g)) << kParamGroupNames[g];
  for (std::size_t gi = 0; gi < kNumParamGroups; ++gi) {
    EXPECT_EQ(got.adam.groups()[gi].m, cpu.adam.groups()[gi].m);
    EXPECT_EQ(got.adam.groups()[gi].v, cpu.adam.groups()[gi].v);
  }
  std::size_t moved = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i)
    moved += got.model.means[3 * i] != cpu.model.means[3 * i] ? 1 : 0;
  EXPECT_GT(moved, 0u);
  EXPECT_LE(moved, static_cast<std::size_t>(o.split_count) * c.split);
}

TEST(CudaRefine, OpacityResetIsTheCpus) {
  const SplatSet init = random_set(300, 3);
  cuda::DeviceModel dev;
  dev.upload_from(init);
  cuda::device_reset_opacity(dev, 0.01f);
  SplatSet cpu = init;
  reset_opacity(cpu, 0.01f);
  expect_same_set(downloaded(dev, init), cpu);
}

TEST(CudaRefine, McmcNoiseMatchesTheHostReferenceExactly) {
  const SplatSet init = random_set(400, 5);
  McmcOptions o;
  cuda::DeviceModel dev;
  dev.upload_from(init);
  const std::uint64_t key = cuda::counter_key(123, 0);
  cuda::device_mcmc_noise(dev, 1e-4f, o, key);
  SplatSet ref = init;
  GaussianModel& m = ref.model;
  const float scale = o.noise_lr * 1e-4f;
  std::size_t moved = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const float op = sigmoid(m.opacity_logits[i]);
    const float gate = 1.f / (1.f + std::exp(-o.noise_k * ((1.f - op) - o.noise_t)));
    const Vec3f z{static_cast<float>(cuda::counter_normal(key, i, 0)), static_cast<float>(cuda::counter_normal(key, i, 1)),
                  static_cast<float>(cuda::counter_normal(key, i, 2))};
    const Mat3f R = quat_to_rotmat(load_quat(m.quats.data(), static_cast<long>(i)));
    const Vec3f s{std::exp(m.log_scales[3 * i]), std::exp(m.log_scales[3 * i + 1]), std::exp(m.log_scales[3 * i + 2])};
    const Vec3f cz = R * mul(mul(s, s), transpose(R) * z);
    store3(m.means.data(), static_cast<long>(i), load3(m.means.data(), static_cast<long>(i)) + (gate * scale) * cz);
    moved += m.means[3 * i] != init.model.means[3 * i] ? 1 : 0;
  }
  EXPECT_GT(moved, ref.size() / 10);
  expect_same_set(downloaded(dev, init), ref);
}

TEST(CudaRefine, RelocationFormulaIsTheCpus) {
  for (double op : {0.006, 0.05, 0.3, 0.7, 0.99, 0.999999})
    for (int n = 0; n <= kRelocationMaxN + 2; ++n) {
      double o_new = 0, factor = 0;
      cuda::relocation_of(op, n, o_new, factor);
      EXPECT_EQ(o_new, relocation_opacity(op, n)) << op << " " << n;
      EXPECT_EQ(factor, relocation_scale_factor(op, n)) << op << " " << n;
    }
}

TEST(CudaRefine, McmcRelocateAndGrowMatchTheHostReferenceExactly) {
  const SplatSet init = random_set(500, 6);
  McmcOptions o;
  o.max_splats = 510;  // growth stops at the cap
  for (std::size_t cap : {std::size_t{510}, std::size_t{100000}}) {
    o.max_splats = cap;
    cuda::DeviceModel dev, spare;
    cuda::RefineScratch scratch;
    dev.upload_from(init);
    const std::uint64_t k1 = cuda::counter_key(77, 600), k2 = cuda::counter_key(78, 600);
    const std::size_t moved = cuda::device_relocate_dead(dev, o, k1, scratch);
    const std::size_t added = cuda::device_grow(dev, spare, o, k2, scratch);
    SplatSet ref = init;
    EXPECT_EQ(moved, reference_relocate(ref, o, k1));
    EXPECT_EQ(added, reference_grow(ref, o, k2));
    // the counts draw nothing: the CPU's
    SplatSet cpu = init;
    Rng rng(1);
    EXPECT_EQ(moved, relocate_dead(cpu, o, rng));
    EXPECT_EQ(added, grow(cpu, o, rng));
    EXPECT_GT(moved, 50u);
    EXPECT_EQ(added, std::min<std::size_t>(cap, 525) - 500);
    expect_same_set(downloaded(dev, init), ref);
  }
}

// The sampler draws row i with probability weight_i / total: frequencies within 5 standard
// deviations, zero weights never.
TEST(CudaRefine, SamplingFollowsTheWeights) {
  const std::vector<float> op = {0.f, 0.5f, 0.01f, 0.f, 1.f, 0.25f, 0.f};
  std::vector<std::uint64_t> w;
  for (float x : op) w.push_back(cuda::fixed_weight(x));
  cuda::DeviceBuffer<std::uint64_t> weights, before;
  cuda::upload(weights, w);
  before.resize(w.size());
  cuda::DeviceBuffer<unsigned char> scan;
  cuda::exclusive_sum(weights.data(), before.data(), static_cast<std::uint32_t>(w.size()), scan);
  std::uint64_t total = 0;
  for (std::uint64_t x : w) total += x;
  const std::size_t draws = 200000;
  cuda::DeviceBuffer<std::uint32_t> samples(draws), times(w.size());
  cuda::clear(times);
  launch(cuda::mcmc_sample_kernel, cuda::shape_for(draws), before.cspan(), total, cuda::counter_key(5, 1),
         samples.span(), times.span());
  std::vector<std::uint32_t> t;
  cuda::download(times, t);
  double sum_op = 0;
  for (float x : op) sum_op += x;
  for (std::size_t i = 0; i < op.size(); ++i) {
    const double p = op[i] / sum_op, mean = p * draws, sd = std::sqrt(draws * p * (1 - p));
    if (op[i] == 0.f) EXPECT_EQ(t[i], 0u) << i;
    else EXPECT_NEAR(t[i], mean, 5 * sd + 1) << i;
  }
}

TEST(CudaRefine, AreaDownscaleIsTheCpus) {
  Rng r(11);
  for (int channels = 1; channels <= 4; ++channels)
    for (int factor : {2, 3, 4}) {
      Image8 img;
      img.width = 37 + channels;
      img.height = 23 + 2 * channels;
      img.channels = channels;
      img.data.resize(static_cast<std::size_t>(img.width) * img.height * channels);
      for (auto& v : img.data) v = static_cast<std::uint8_t>(r.below(256));
      const int w = img.width / factor, h = img.height / factor;
      const Image8 cpu = resize_area(img, w, h);
      cuda::DeviceBuffer<std::uint8_t> src, out(cpu.data.size());
      cuda::upload(src, img.data);
      cuda::device_area_downscale(src.cspan(), img.width, img.height, channels, w, h, out.span());
      std::vector<std::uint8_t> got;
      cuda::download(out, got);
      EXPECT_EQ(got, cpu.data) << channels << " channels, 1/" << factor;
    }
}

TEST(CudaRefine, TwoRunsGiveTheSameBits) {
  const SplatSet init = random_set(500, 8);
  SplatSet out[2];
  for (SplatSet& s : out) {
    cuda::DeviceModel dev, spare;
    cuda::RefineScratch scratch;
    dev.upload_from(init);
    Rng rng(3);
    cuda::device_densify_and_prune(dev, spare, 1.0, densify_options(), true, 800, rng, scratch);
    McmcOptions o;
    cuda::device_mcmc_noise(dev, 1e-4f, o, cuda::counter_key(rng.next_u64(), 800));
    cuda::device_relocate_dead(dev, o, cuda::counter_key(rng.next_u64(), 800), scratch);
    cuda::device_grow(dev, spare, o, cuda::counter_key(rng.next_u64(), 800), scratch);
    s = downloaded(dev, init);
  }
  expect_same_set(out[0], out[1]);
}
