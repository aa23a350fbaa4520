#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "glint/train/densify.h"
#include "glint/train/splat_set.h"
#include "support/splat_tags.h"

using namespace glint;
using glint::test::expect_row_is;
using glint::test::tagged_splats;

TEST(TrainSplatSet, ArraysCoverEveryPerSplatVector) {
  SplatSet set = tagged_splats(3);
  EXPECT_EQ(set.arrays().size(), 3u * kNumParamGroups + 3u);
  set.check_consistent();
  set.grad_count.pop_back();
  EXPECT_THROW(set.check_consistent(), std::logic_error);
}

TEST(TrainSplatSet, PruneKeepsSurvivorsTogether) {
  SplatSet set = tagged_splats(7);
  std::vector<std::uint8_t> mask = {1, 0, 0, 1, 0, 1, 0};
  set.remove(mask);
  set.check_consistent();
  ASSERT_EQ(set.size(), 4u);
  const std::size_t ids[] = {1, 2, 4, 6};
  for (std::size_t r = 0; r < 4; ++r) expect_row_is(set, r, ids[r], false);
  std::vector<std::uint8_t> wrong(3, 0);
  EXPECT_THROW(set.remove(wrong), std::invalid_argument);
}

TEST(TrainSplatSet, CloneCopiesParamsAndZeroesMoments) {
  SplatSet set = tagged_splats(4);
  std::vector<std::uint32_t> parents = {2, 0, 2};
  EXPECT_EQ(set.append_copies(parents), 4u);
  set.check_consistent();
  ASSERT_EQ(set.size(), 7u);
  for (std::size_t r = 0; r < 4; ++r) expect_row_is(set, r, r, false);
  for (std::size_t k = 0; k < parents.size(); ++k) expect_row_is(set, 4 + k, parents[k], true);
  std::vector<std::uint32_t> bad = {7};
  EXPECT_THROW(set.append_copies(bad), std::invalid_argument);
}

TEST(TrainSplatSet, SplitReplacesParentsWithChildren) {
  SplatSet set = tagged_splats(5);
  // Tags make absurd scales; give the parents sane geometry to sample from.
  for (std::size_t i = 0; i < 5; ++i)
    for (int a = 0; a < 3; ++a) set.model.log_scales[3 * i + a] = -1.f, set.model.means[3 * i + a] = float(i);
  Rng rng(3);
  std::vector<std::uint32_t> rows = {1, 3};
  EXPECT_EQ(split_splats(set, rows, 2, 1.6f, rng), 4u);
  set.check_consistent();
  ASSERT_EQ(set.size(), 7u);
  const std::set<std::string> moved = {"means", "log_scales"};
  const std::size_t survivors[] = {0, 2, 4};
  for (std::size_t r = 0; r < 3; ++r) expect_row_is(set, r, survivors[r], false, moved);
  const std::size_t children[] = {1, 3, 1, 3};  // all first children, then all second
  for (std::size_t k = 0; k < 4; ++k) {
    expect_row_is(set, 3 + k, children[k], true, moved);
    for (int a = 0; a < 3; ++a) EXPECT_FLOAT_EQ(set.model.log_scales[3 * (3 + k) + a], -1.f - std::log(1.6f));
  }
}

TEST(TrainSplatSet, ZeroMomentsOfRows) {
  SplatSet set = tagged_splats(3);
  std::vector<std::uint32_t> rows = {1};
  set.zero_moments(rows);
  expect_row_is(set, 0, 0, false);
  expect_row_is(set, 2, 2, false);
  expect_row_is(set, 1, 1, false, {"adam_m.means", "adam_v.means", "adam_m.log_scales", "adam_v.log_scales",
                                   "adam_m.quats", "adam_v.quats", "adam_m.opacity_logits", "adam_v.opacity_logits",
                                   "adam_m.sh_dc", "adam_v.sh_dc", "adam_m.sh_rest", "adam_v.sh_rest"});
  for (const AdamMoments& g : set.adam.groups())
    for (int j = 0; j < g.width; ++j) EXPECT_EQ(g.m[g.width + j] + g.v[g.width + j], 0.f);
}

TEST(TrainSplatSet, AdamStepThroughTheSet) {
  GaussianModel m;
  m.resize(2);
  SplatSet set(m);
  GaussianModel grads = m;
  for (float& g : grads.means) g = 1.f;
  GroupRates lr{0.1f, 0, 0, 0, 0, 0};
  std::uint8_t vis[] = {1, 0};
  set.adam_step(grads_of(grads), lr, vis);
  EXPECT_NEAR(set.model.means[0], -0.1f, 1e-6f);
  EXPECT_EQ(set.model.means[3], 0.f);
  EXPECT_EQ(set.adam.group("means").step, 1u);
}
