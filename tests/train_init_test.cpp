#include <gtest/gtest.h>

#include <cmath>

#include "glint/train/init.h"

using namespace glint;

TEST(TrainInit, GridPointsGetNeighbourScale) {
  // 6x5x4 grid with spacing 0.5: every point has at least 3 neighbours at distance 0.5.
  PointCloud pc;
  const float h = 0.5f;
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 6; ++x) {
        pc.xyz.insert(pc.xyz.end(), {x * h, y * h, z * h});
        pc.rgb.insert(pc.rgb.end(), {255, 0, 128});
      }
  GaussianModel m = init_from_points(pc);
  ASSERT_EQ(m.size(), 120u);
  EXPECT_EQ(m.sh_degree, 0);
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(m.log_scales[3 * i + a], std::log(h), 1e-6) << i;
      EXPECT_EQ(m.means[3 * i + a], pc.xyz[3 * i + a]);
    }
    EXPECT_NEAR(m.sh_dc[3 * i], 0.5f / kShC0, 1e-6);
    EXPECT_NEAR(m.sh_dc[3 * i + 1], -0.5f / kShC0, 1e-6);
    EXPECT_NEAR(m.sh_dc[3 * i + 2] * kShC0 + 0.5f, 128.f / 255.f, 1e-6);
    EXPECT_EQ(m.quats[4 * i], 1.f);
    EXPECT_EQ(m.quats[4 * i + 1], 0.f);
    EXPECT_NEAR(1 / (1 + std::exp(-m.opacity_logits[i])), 0.1f, 1e-6);
  }
  for (float r : m.sh_rest) EXPECT_EQ(r, 0.f);
}

TEST(TrainInit, NeighbourDistancesOnALine) {
  // Points at 0, 1, 3, 7: nearest 3 others of 0 are 1, 3, 7 -> (1 + 9 + 49) / 3.
  std::vector<float> xyz = {0, 0, 0, 1, 0, 0, 3, 0, 0, 7, 0, 0};
  std::vector<float> d2 = mean_knn_dist2(xyz, 3, 1e-7f);
  EXPECT_NEAR(d2[0], 59.f / 3, 1e-5);
  EXPECT_NEAR(d2[3], (49.f + 36 + 16) / 3, 1e-5);
  // k = 1; duplicates give the floor; lone and empty clouds are fine.
  EXPECT_NEAR(mean_knn_dist2(xyz, 1, 1e-7f)[2], 4.f, 1e-6);
  std::vector<float> dup = {1, 2, 3, 1, 2, 3};
  EXPECT_EQ(mean_knn_dist2(dup, 3, 1e-7f)[0], 1e-7f);
  EXPECT_EQ(mean_knn_dist2({1, 2, 3}, 3, 1e-7f)[0], 1e-7f);
  EXPECT_TRUE(mean_knn_dist2({}, 3, 1e-7f).empty());
  EXPECT_EQ(init_from_points(PointCloud{}).size(), 0u);
}
