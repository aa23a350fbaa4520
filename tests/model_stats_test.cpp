#include <gtest/gtest.h>

#include <cmath>

#include "glint/core/model_stats.h"

namespace glint {
namespace {

TEST(ModelStats, EmptyModelIsAllZero) {
  const ModelStats st = compute_model_stats(GaussianModel{});
  EXPECT_EQ(st.count, 0u);
  EXPECT_EQ(st.max_scale.max, 0.0);
}

TEST(ModelStats, BoundsPercentilesOpacityAndScale) {
  GaussianModel m;
  m.sh_degree = 2;
  const std::size_t n = 101;
  m.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    m.means[i * 3 + 0] = static_cast<float>(i);        // 0..100
    m.means[i * 3 + 1] = -static_cast<float>(i) * 2;   // -200..0
    m.means[i * 3 + 2] = i == 50 ? 1e6f : 1.0f;        // one far floater
    m.opacity_logits[i] = i < 10 ? -10.0f : 0.0f;      // 10 nearly transparent, rest 0.5
    m.log_scales[i * 3 + 0] = std::log(2.0f);
    m.log_scales[i * 3 + 1] = std::log(0.5f);
    m.log_scales[i * 3 + 2] = std::log(1.0f);
  }
  const ModelStats st = compute_model_stats(m);
  EXPECT_EQ(st.count, n);
  EXPECT_EQ(st.sh_degree, 2);
  EXPECT_EQ(st.bounds_min[0], 0.0);
  EXPECT_EQ(st.bounds_max[0], 100.0);
  EXPECT_EQ(st.bounds_min[1], -200.0);
  EXPECT_EQ(st.bounds_max[2], 1e6);
  EXPECT_DOUBLE_EQ(st.robust_min[0], 1.0);   // 1st percentile of 0..100
  EXPECT_DOUBLE_EQ(st.robust_max[0], 99.0);
  EXPECT_DOUBLE_EQ(st.robust_max[2], 1.0);   // the floater is outside the 99th percentile
  EXPECT_EQ(st.nearly_transparent, 10u);
  EXPECT_DOUBLE_EQ(st.opacity.median, 0.5);
  EXPECT_DOUBLE_EQ(st.opacity.max, 0.5);
  EXPECT_NEAR(st.opacity.min, 1 / (1 + std::exp(10.0)), 1e-12);
  EXPECT_NEAR(st.max_scale.median, 2.0, 1e-6);
  EXPECT_NEAR(st.anisotropy_median, 4.0, 1e-5);
}

}  // namespace
}  // namespace glint
