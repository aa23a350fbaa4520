#include "model_fixture.h"

#include <gtest/gtest.h>

#include <random>

namespace glint::test {

GaussianModel random_model(std::size_t n, int degree, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  GaussianModel m;
  m.sh_degree = degree;
  m.resize(n);
  for (auto& v : m.means) v = 10.f * u(rng);
  for (auto& v : m.log_scales) v = -3.f + 2.f * u(rng);
  for (auto& v : m.quats) v = u(rng);
  for (auto& v : m.opacity_logits) v = 4.f * u(rng);
  for (auto& v : m.sh_dc) v = 1.5f * u(rng);
  const int rest = sh_rest_count(degree);
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < rest; ++k)
      for (int c = 0; c < 3; ++c) m.sh_rest[(i * kShRestCoeffs + k) * 3 + c] = 0.3f * u(rng);
  return m;
}

void expect_same_model(const GaussianModel& a, const GaussianModel& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.sh_degree, b.sh_degree);
  EXPECT_EQ(a.means, b.means);
  EXPECT_EQ(a.log_scales, b.log_scales);
  EXPECT_EQ(a.quats, b.quats);
  EXPECT_EQ(a.opacity_logits, b.opacity_logits);
  EXPECT_EQ(a.sh_dc, b.sh_dc);
  EXPECT_EQ(a.sh_rest, b.sh_rest);
}

}  // namespace glint::test
