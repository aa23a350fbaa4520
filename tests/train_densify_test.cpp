#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "glint/train/densify.h"

using namespace glint;

namespace {

float logit(float p) { return std::log(p / (1 - p)); }

// Six splats, extent 1 (clone/split boundary at scale 0.01):
// 0 small + high gradient -> clone; 1 large + high gradient -> split; 2 small, low gradient;
// 3 transparent -> pruned; 4 huge in world space and 5 huge on screen -> pruned once large
// splats are pruned (after the first opacity reset).
SplatSet six_splats() {
  GaussianModel m;
  m.resize(6);
  const float scales[] = {0.005f, 0.05f, 0.005f, 0.005f, 0.2f, 0.005f};
  for (int i = 0; i < 6; ++i) {
    for (int a = 0; a < 3; ++a) {
      m.means[3 * i + a] = float(i);
      m.log_scales[3 * i + a] = std::log(scales[i]) - 0.1f * a;  // max axis is a = 0
      m.sh_dc[3 * i + a] = 0.1f * i;
    }
    m.quats[4 * i] = 1;
    m.opacity_logits[i] = i == 3 ? logit(0.001f) : logit(0.5f);
  }
  SplatSet set(m);
  // Moments tagged with the splat index so we can follow them.
  for (AdamMoments& g : set.adam.groups())
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < g.width; ++j) g.m[i * g.width + j] = g.v[i * g.width + j] = 100.f + i;
  return set;
}

// Two views; splats 0 and 1 have a mean NDC gradient norm of 3e-4, the others 1e-4.
void add_stats(SplatSet& set, const DensifyOptions& o, long step) {
  const int w = 100, h = 50;  // NDC gradient = pixel gradient * (w/2, h/2) = (50, 25)
  std::vector<float> g(12), radii(6, 5.f);
  for (int view = 0; view < 2; ++view) {
    for (int i = 0; i < 6; ++i) {
      float ndc = i < 2 ? 3e-4f : 1e-4f;
      // Direction alternates between x and y so both scalings are exercised.
      g[2 * i] = view == 0 ? ndc / 50.f : 0.f;
      g[2 * i + 1] = view == 0 ? 0.f : ndc / 25.f;
    }
    radii[5] = view == 0 ? 30.f : 5.f;
    accumulate_densify_stats(set, step, o, g, radii, w, h);
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(TrainDensify, StatisticsUseNdcGradientNorms) {
  SplatSet set = six_splats();
  DensifyOptions o;
  add_stats(set, o, 600);
  EXPECT_NEAR(set.grad_accum[0] / set.grad_count[0], 3e-4f, 1e-9f);
  EXPECT_NEAR(set.grad_accum[2] / set.grad_count[2], 1e-4f, 1e-9f);
  EXPECT_EQ(set.grad_count[0], 2.f);
  EXPECT_EQ(set.max_radii[5], 30.f);
  // Invisible splats (radius 0) are not counted; nothing is accumulated after densify_until.
  std::vector<float> g(12, 1.f), radii(6, 0.f);
  accumulate_densify_stats(set, 600, o, g, radii, 10, 10);
  EXPECT_EQ(set.grad_count[0], 2.f);
  radii.assign(6, 1.f);
  accumulate_densify_stats(set, o.densify_until, o, g, radii, 10, 10);
  EXPECT_EQ(set.grad_count[0], 2.f);
  EXPECT_THROW(accumulate_densify_stats(set, 600, o, std::vector<float>(4), radii, 10, 10), std::invalid_argument);
}

TEST(TrainDensify, CloneSplitPruneBeforeFirstReset) {
  SplatSet set = six_splats();
  DensifyOptions o;
  add_stats(set, o, 600);
  Rng rng(1);
  DensifyReport r = densify_step(set, 600, 1.0, o, rng);
  set.check_consistent();
  EXPECT_TRUE(r.densified);
  EXPECT_FALSE(r.opacity_reset);
  EXPECT_EQ(r.cloned, 1u);
  EXPECT_EQ(r.split, 1u);
  EXPECT_EQ(r.pruned, 1u);  // only the transparent one: large splats are kept before the first reset
  // Order: survivors 0, 2, 4, 5 (1 split, 3 pruned), clone of 0, two children of 1.
  ASSERT_EQ(set.size(), 7u);
  const int origin[] = {0, 2, 4, 5, 0, 1, 1};
  const bool fresh[] = {false, false, false, false, true, true, true};
  for (int r2 = 0; r2 < 7; ++r2) {
    EXPECT_FLOAT_EQ(set.model.sh_dc[3 * r2], 0.1f * origin[r2]) << r2;
    for (const AdamMoments& g : set.adam.groups())
      EXPECT_EQ(g.m[r2 * g.width], fresh[r2] ? 0.f : 100.f + origin[r2]) << r2 << " " << g.name;
    EXPECT_EQ(set.grad_count[r2], 0.f);  // statistics restart after each densification
  }
  // Clone is exact; children of 1 are 1.6x smaller and near the parent.
  for (int a = 0; a < 3; ++a) EXPECT_EQ(set.model.means[3 * 4 + a], 0.f);
  for (int c = 5; c < 7; ++c) {
    EXPECT_FLOAT_EQ(set.model.log_scales[3 * c], std::log(0.05f) - std::log(1.6f));
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(set.model.means[3 * c + a], 1.f, 0.05f * 6);
  }
  EXPECT_NE(set.model.means[3 * 5], set.model.means[3 * 6]);
}

TEST(TrainDensify, LargeSplatsPrunedAfterFirstReset) {
  SplatSet set = six_splats();
  DensifyOptions o;
  add_stats(set, o, 3100);
  Rng rng(1);
  DensifyReport r = densify_step(set, 3100, 1.0, o, rng);
  EXPECT_EQ(r.pruned, 3u);  // transparent, world-huge, screen-huge
  ASSERT_EQ(set.size(), 5u);  // 0, 2, clone of 0, two children of 1
  EXPECT_FLOAT_EQ(set.model.sh_dc[3], 0.2f);
}

TEST(TrainDensify, ScheduleAndOpacityReset) {
  DensifyOptions o;
  Rng rng(1);
  for (long step : {500L, 550L, 15000L, 15100L}) {
    SplatSet set = six_splats();
    add_stats(set, o, step);
    EXPECT_FALSE(densify_step(set, step, 1.0, o, rng).densified) << step;
  }
  SplatSet set = six_splats();
  set.model.opacity_logits[0] = logit(0.9f);
  set.model.opacity_logits[2] = logit(0.006f);  // above the prune threshold, below the cap
  add_stats(set, o, 3000);
  DensifyReport r = densify_step(set, 3000, 1.0, o, rng);
  EXPECT_TRUE(r.densified);
  EXPECT_TRUE(r.opacity_reset);
  for (float l : set.model.opacity_logits) EXPECT_LE(l, logit(0.01f) + 1e-6f);
  EXPECT_EQ(set.model.opacity_logits[1], logit(0.006f));  // below the cap: unchanged (old 2)
  for (float m : set.adam.group("opacity_logits").m) EXPECT_EQ(m, 0.f);
  for (float v : set.adam.group("opacity_logits").v) EXPECT_EQ(v, 0.f);
  EXPECT_NE(set.adam.group("means").m[0], 0.f);  // other groups keep their moments
  // White backgrounds also reset at densify_from (3DGS).
  o.white_background = true;
  SplatSet w = six_splats();
  EXPECT_TRUE(densify_step(w, 500, 1.0, o, rng).opacity_reset);
}

TEST(TrainDensify, DeterministicGivenSeed) {
  DensifyOptions o;
  auto run = [&](std::uint64_t seed) {
    SplatSet set = six_splats();
    Rng rng(seed);
    for (long step = 600; step <= 1000; step += 100) {
      // Every splat qualifies, so each round clones the small ones and splits the others.
      std::vector<float> g(2 * set.size(), 1e-3f), radii(set.size(), 1.f);
      accumulate_densify_stats(set, step, o, g, radii, 2, 2);
      densify_step(set, step, 1.0, o, rng);
    }
    EXPECT_GT(set.size(), 50u);
    return set;
  };
  SplatSet a = run(7), b = run(7), c = run(8);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(same_bits(a.model.means, b.model.means));
  EXPECT_TRUE(same_bits(a.adam.group("means").m, b.adam.group("means").m));
  EXPECT_FALSE(same_bits(a.model.means, c.model.means));
}
