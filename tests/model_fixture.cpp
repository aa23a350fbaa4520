#include "model_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

void expect_splat_quantised(const GaussianModel& m, const GaussianModel& back, bool check_rotation) {
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  ASSERT_EQ(back.size(), m.size());
  EXPECT_EQ(back.sh_degree, 0);
  EXPECT_EQ(back.means, m.means);
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(back.log_scales[i * 3 + c], m.log_scales[i * 3 + c], 1e-6);
      const double colour = std::clamp(0.5 + kShC0 * m.sh_dc[i * 3 + c], 0.0, 1.0);
      EXPECT_NEAR(0.5 + kShC0 * back.sh_dc[i * 3 + c], colour, 0.5 / 255 + 1e-6);
    }
    EXPECT_NEAR(sigmoid(back.opacity_logits[i]), sigmoid(m.opacity_logits[i]), 0.5 / 255 + 1e-6);
    if (!check_rotation) continue;
    double n = 0;
    for (int c = 0; c < 4; ++c) n += double(m.quats[i * 4 + c]) * m.quats[i * 4 + c];
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(back.quats[i * 4 + c], m.quats[i * 4 + c] / std::sqrt(n), 1.0 / 128 + 1e-6);
  }
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
  EXPECT_EQ(a.antialiased, b.antialiased);
}

}  // namespace glint::test
