#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "glint/train/mcmc.h"
#include "glint/train/mcmc_edits.h"

using namespace glint;

namespace {

float logit(float p) { return std::log(p / (1 - p)); }
float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

SplatSet random_set(std::size_t n, float dead_fraction, std::uint64_t seed) {
  Rng rng(seed);
  GaussianModel m;
  m.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      m.means[3 * i + a] = static_cast<float>(rng.normal());
      m.log_scales[3 * i + a] = std::log(0.01f + 0.05f * static_cast<float>(rng.uniform()));
      m.sh_dc[3 * i + a] = static_cast<float>(i);  // identifies the splat a copy came from
    }
    m.quats[4 * i] = 1;
    m.quats[4 * i + 1] = static_cast<float>(rng.normal()) * 0.3f;
    bool dead = rng.uniform() < dead_fraction;
    m.opacity_logits[i] = logit(dead ? 0.001f : 0.05f + 0.9f * static_cast<float>(rng.uniform()));
  }
  SplatSet set(m);
  for (AdamMoments& g : set.adam.groups()) std::fill(g.m.begin(), g.m.end(), 1.f);
  return set;
}

}  // namespace

TEST(TrainMcmc, RelocationFormula) {
  for (double o : {0.01, 0.3, 0.9, 0.999}) {
    EXPECT_NEAR(relocation_opacity(o, 1), o, 1e-15);
    EXPECT_NEAR(relocation_scale_factor(o, 1), 1.0, 1e-12);
    EXPECT_NEAR(relocation_opacity(o, 2), 1 - std::sqrt(1 - o), 1e-15);
    // n = 2: denominator o2 + (o2 - o2^2 / sqrt 2), closed form.
    double o2 = 1 - std::sqrt(1 - o);
    EXPECT_NEAR(relocation_scale_factor(o, 2), o / (2 * o2 - o2 * o2 / std::sqrt(2.0)), 1e-12);
    // Sharing between more splats: each gets less opacity; n is capped at n_max.
    EXPECT_LT(relocation_opacity(o, 10), relocation_opacity(o, 2));
    EXPECT_EQ(relocation_scale_factor(o, 500), relocation_scale_factor(o, kRelocationMaxN));
    EXPECT_TRUE(std::isfinite(relocation_scale_factor(o, kRelocationMaxN)));
  }
}

TEST(TrainMcmc, DeadSplatsAreRelocatedOntoLiveOnes) {
  SplatSet set = random_set(200, 0.3f, 1);
  std::vector<bool> was_dead(set.size());
  std::vector<float> old_logit = set.model.opacity_logits;
  std::size_t dead = 0;
  for (std::size_t i = 0; i < set.size(); ++i) dead += was_dead[i] = sigmoid(set.model.opacity_logits[i]) <= 0.005f;
  ASSERT_GT(dead, 20u);
  McmcOptions o;
  Rng rng(5);
  EXPECT_EQ(relocate_dead(set, o, rng), dead);
  set.check_consistent();
  EXPECT_EQ(set.size(), 200u);
  for (std::size_t i = 0; i < set.size(); ++i) {
    EXPECT_GT(sigmoid(set.model.opacity_logits[i]), 0.005f) << i;
    if (!was_dead[i]) continue;
    std::size_t src = static_cast<std::size_t>(set.model.sh_dc[3 * i]);
    ASSERT_LT(src, 200u);
    EXPECT_FALSE(was_dead[src]);
    EXPECT_EQ(set.model.means[3 * i], set.model.means[3 * src]);  // placed on its source
    EXPECT_EQ(set.model.opacity_logits[i], set.model.opacity_logits[src]);
    EXPECT_LT(sigmoid(set.model.opacity_logits[src]), sigmoid(old_logit[src]));  // opacity shared
    for (const AdamMoments& g : set.adam.groups()) {
      EXPECT_EQ(g.m[i * g.width], 0.f);
      EXPECT_EQ(g.m[src * g.width], 0.f);
    }
  }
}

TEST(TrainMcmc, GrowthNeverExceedsCap) {
  McmcOptions o;
  o.max_splats = 130;
  SplatSet set = random_set(100, 0.1f, 2);
  Rng rng(3);
  std::size_t before = set.size();
  for (long step = 501; step <= 3000; ++step) {
    McmcReport r = mcmc_step(set, step, o, rng);
    set.check_consistent();
    ASSERT_LE(set.size(), o.max_splats);
    if (step == 600) {
      EXPECT_TRUE(r.refined);
      EXPECT_EQ(r.added, 5u);  // floor(1.05 * 100) - 100
    }
    if (step % 100 != 0) {
      EXPECT_FALSE(r.refined);
    }
  }
  EXPECT_EQ(set.size(), 130u);
  EXPECT_GT(set.size(), before);
  // New rows start with zero moments and copy a live source.
  const AdamMoments& g = set.adam.group("means");
  EXPECT_EQ(g.m[3 * 129], 0.f);
  // Above the cap already (e.g. a large initial cloud): nothing is added.
  o.max_splats = 50;
  EXPECT_EQ(grow(set, o, rng), 0u);
}

TEST(TrainMcmc, NoiseMovesTransparentSplatsAndIsDeterministic) {
  SplatSet a = random_set(64, 0.5f, 4), b = a;
  McmcOptions o;
  Rng ra(9), rb(9);
  std::vector<float> before = a.model.means;
  mcmc_add_noise(a, 1.6e-4f, o, ra);
  mcmc_add_noise(b, 1.6e-4f, o, rb);
  EXPECT_EQ(std::memcmp(a.model.means.data(), b.model.means.data(), before.size() * 4), 0);
  EXPECT_EQ(ra, rb);
  for (std::size_t i = 0; i < 64; ++i) {
    float d = std::fabs(a.model.means[3 * i] - before[3 * i]) + std::fabs(a.model.means[3 * i + 1] - before[3 * i + 1]);
    float op = sigmoid(a.model.opacity_logits[i]);
    if (op > 0.5f) {
      EXPECT_LT(d, 1e-8f) << i;  // gate sigmoid(-100 (o - 0.005)) < 1e-21
    }
    if (op < 0.002f) {
      EXPECT_GT(d, 0.f) << i;
    }
  }
}

TEST(TrainMcmc, RegularizerGradient) {
  SplatSet set = random_set(5, 0.f, 6);
  McmcOptions o;
  std::vector<float> go(5, 0.f), gs(15, 0.f);
  double v = mcmc_regularizer(set.model, o, go.data(), gs.data());
  const double eps = 1e-3;
  for (int i = 0; i < 5; ++i) {
    GaussianModel p = set.model, m = set.model;
    p.opacity_logits[i] += eps;
    m.opacity_logits[i] -= eps;
    double fd = (mcmc_regularizer(p, o, nullptr, nullptr) - mcmc_regularizer(m, o, nullptr, nullptr)) / (2 * eps);
    EXPECT_NEAR(go[i], fd, 1e-6);
    p = set.model, m = set.model;
    p.log_scales[3 * i + 1] += eps;
    m.log_scales[3 * i + 1] -= eps;
    fd = (mcmc_regularizer(p, o, nullptr, nullptr) - mcmc_regularizer(m, o, nullptr, nullptr)) / (2 * eps);
    EXPECT_NEAR(gs[3 * i + 1], fd, 1e-6);
  }
  EXPECT_GT(v, 0);
}

// mcmc_step_edits (train/mcmc_edits.h, the device sessions' refinement) against mcmc_step:
// its edits, applied to the set in their documented order, give mcmc_step's set bit for
// bit, with the same draws, and the two arrays it is given end as mcmc_step leaves them.
TEST(TrainMcmc, StepEditsReplayTheStepBitForBit) {
  McmcOptions o;
  o.refine_from = 0;
  o.refine_every = 10;
  o.max_splats = 230;
  o.growth = 0.2;
  for (float dead_fraction : {0.0f, 0.3f}) {
    SplatSet set = random_set(200, dead_fraction, 4);
    for (AdamMoments& g : set.adam.groups()) std::fill(g.v.begin(), g.v.end(), 2.f);
    for (std::size_t i = 0; i < set.size(); ++i) set.grad_accum[i] = set.grad_count[i] = set.max_radii[i] = float(i + 1);
    SplatSet ref = set;
    Rng a(9), b(9);
    const McmcReport rep = mcmc_step(ref, 20, o, a);
    std::vector<float> logits = set.model.opacity_logits, log_scales = set.model.log_scales;
    const McmcEdits e = mcmc_step_edits(logits, log_scales, 20, o, b);
    EXPECT_EQ(a.state(), b.state());
    EXPECT_EQ(e.report.refined, rep.refined);
    EXPECT_EQ(e.report.relocated, rep.relocated);
    EXPECT_EQ(e.report.added, rep.added);
    EXPECT_EQ(rep.added, 30u);
    if (dead_fraction > 0) {
      EXPECT_GT(rep.relocated, 20u);
    }
    for (int g = 0; g < kNumParamGroups; ++g) {
      std::vector<float>& p = set.param(g);
      const auto w = static_cast<std::size_t>(kParamGroupWidths[static_cast<std::size_t>(g)]);
      for (std::size_t k = 0; k < e.copy_to.size(); ++k)
        std::copy_n(p.begin() + e.copy_from[k] * w, w, p.begin() + e.copy_to[k] * w);
    }
    for (std::size_t k = 0; k < e.set_rows.size(); ++k) {
      set.model.opacity_logits[e.set_rows[k]] = e.set_logit[k];
      for (int c = 0; c < 3; ++c) set.model.log_scales[3 * e.set_rows[k] + c] = e.set_log_scale[3 * k + c];
    }
    set.zero_moments(e.zero_rows);
    set.append_copies(e.append_from);
    const std::vector<SplatArray> got = set.arrays(), want = ref.arrays();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(*got[i].data, *want[i].data) << want[i].name;
    EXPECT_EQ(logits, ref.model.opacity_logits);
    EXPECT_EQ(log_scales, ref.model.log_scales);
    // not a refinement step: nothing
    std::vector<float> l2 = logits, s2 = log_scales;
    EXPECT_FALSE(mcmc_step_edits(l2, s2, 21, o, b).report.refined);
    EXPECT_EQ(a.state(), b.state());
  }
}
