#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "glint/core/error.h"
#include "glint/train/loss.h"
#include "glint/io/image_ops.h"
#include "glint/train/metrics.h"
#include "glint/train/row_sum.h"
#include "glint/train/ssim.h"

using namespace glint;

namespace {

// Render and target whose every difference is at least 0.05, so central differences with a
// small step never cross the kink of |x - y|.
void random_pair(ImageF& r, ImageF& t, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.2f, 0.8f), d(0.05f, 0.15f);
  std::bernoulli_distribution up(0.5);
  for (std::size_t i = 0; i < r.data.size(); ++i) {
    t.data[i] = u(gen);
    r.data[i] = t.data[i] + (up(gen) ? 1.f : -1.f) * d(gen);
  }
}

}  // namespace

TEST(TrainLoss, ValueCombinesL1AndSsim) {
  ImageF r(10, 8, 3), t(10, 8, 3);
  random_pair(r, t, 3);
  LossValue v = photometric_loss(r, t);
  double l1 = 0;
  for (std::size_t i = 0; i < r.data.size(); ++i) l1 += std::fabs(double(r.data[i]) - t.data[i]);
  l1 /= static_cast<double>(r.data.size());
  EXPECT_NEAR(v.l1, l1, 1e-9);
  EXPECT_NEAR(v.ssim, ssim(r, t), 1e-12);
  const double lam = 0.2f;  // the option is a float
  EXPECT_NEAR(v.total, (1 - lam) * l1 + lam * (1 - v.ssim), 1e-12);
  LossValue pure = photometric_loss(r, t, nullptr, LossOptions{0.f});
  EXPECT_NEAR(pure.total, l1, 1e-9);
}

TEST(TrainLoss, GradientMatchesFiniteDifferences) {
  const int w = 9, h = 7;
  ImageF r(w, h, 3), t(w, h, 3);
  random_pair(r, t, 5);
  ImageF grad;
  photometric_loss(r, t, &grad);
  ASSERT_EQ(grad.data.size(), r.data.size());
  // Reference in double: L1 term exact, SSIM term through the double instantiation.
  std::vector<double> dr(r.data.begin(), r.data.end()), dt(t.data.begin(), t.data.end());
  auto loss_d = [&](const std::vector<double>& x) {
    double l1 = 0;
    for (std::size_t i = 0; i < x.size(); ++i) l1 += std::fabs(x[i] - dt[i]);
    l1 /= static_cast<double>(x.size());
    return 0.8 * l1 + 0.2 * (1 - ssim<double>(x.data(), dt.data(), w, h, 3));
  };
  const double eps = 1e-5;
  for (std::size_t i = 0; i < dr.size(); ++i) {
    std::vector<double> p = dr, m = dr;
    p[i] += eps;
    m[i] -= eps;
    double fd = (loss_d(p) - loss_d(m)) / (2 * eps);
    EXPECT_NEAR(grad.data[i], fd, 2e-6 + 1e-3 * std::fabs(fd)) << "i=" << i;
  }
}

// Eight interleaved sums, tails of every length included: the same value as one running sum
// up to rounding, and exact on integers.
// The gradient folds L1 into SSIM's last pass: the same bits as L1's sign term minus lambda
// times SSIM's gradient, taken apart; the value the same as without a gradient. Some
// differences are exactly 0 (sign 0) and the image is large enough for threads.
TEST(TrainLoss, FoldedGradientIsTheSameAsTakenApart) {
  ImageF r(171, 97, 3), t(171, 97, 3);
  random_pair(r, t, 9);
  for (std::size_t i = 0; i < r.data.size(); i += 7) r.data[i] = t.data[i];
  const LossOptions o{0.2f};
  ImageF g;
  const LossValue v = photometric_loss(r, t, &g, o);
  const LossValue plain = photometric_loss(r, t, nullptr, o);
  EXPECT_EQ(v.total, plain.total);
  EXPECT_EQ(v.l1, plain.l1);
  ImageF gs;
  EXPECT_EQ(ssim(r, t, &gs), v.ssim);
  const float l1_scale = (1.f - o.lambda_dssim) / float(r.data.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < r.data.size(); ++i) {
    const float d = r.data[i] - t.data[i];
    const float sign = float(d > 0.f) - float(d < 0.f);
    differ += (l1_scale * sign - o.lambda_dssim * gs.data[i]) != g.data[i];
  }
  EXPECT_EQ(differ, 0u);
  // without SSIM: the sign term alone, into a fresh buffer and into g (kept, overwritten)
  ImageF g0;
  photometric_loss(r, t, &g0, LossOptions{0.f});
  photometric_loss(r, t, &g, LossOptions{0.f});
  EXPECT_EQ(g.data, g0.data);
  for (std::size_t i = 0; i < r.data.size(); i += 97) {
    const float d = r.data[i] - t.data[i];
    EXPECT_EQ(g0.data[i], (1.f / float(r.data.size())) * (float(d > 0.f) - float(d < 0.f)));
  }
}

TEST(TrainLoss, RowSumMatchesARunningSum) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (long n : {0L, 1L, 5L, 7L, 8L, 9L, 15L, 16L, 17L, 960L, 1001L}) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = u(gen);
    long double plain = 0;
    for (double x : v) plain += x;
    EXPECT_NEAR(row_sum(n, [&](long j) { return v[static_cast<std::size_t>(j)]; }), static_cast<double>(plain), 1e-12)
        << n;
    EXPECT_EQ(row_sum(n, [](long j) { return static_cast<double>(j + 1); }), static_cast<double>(n * (n + 1) / 2)) << n;
  }
}

TEST(TrainLoss, SizeMismatchIsAnError) {
  ImageF a(4, 4, 3), b(4, 4, 4);
  EXPECT_THROW(photometric_loss(a, b), Error);
}

TEST(TrainMetrics, PsnrOfKnownError) {
  ImageF a(4, 3, 3, 0.5f), b(4, 3, 3, 0.5f);
  EXPECT_TRUE(std::isinf(psnr(a, b)));
  for (float& v : b.data) v = 0.6f;  // MSE 0.01 -> 20 dB
  EXPECT_NEAR(psnr(a, b), 20.0, 1e-5);
  Image8 x{2, 2, 3, std::vector<std::uint8_t>(12, 100)}, y = x;
  y.data[0] = 110;  // MSE = (10/255)^2 / 12
  EXPECT_NEAR(psnr(x, y), 10 * std::log10(12.0 * 255 * 255 / 100), 1e-9);
  EXPECT_THROW(psnr(a, ImageF(4, 4, 3)), Error);
}

TEST(TrainMetrics, SsimFrom8BitMatchesFloat) {
  Image8 x{7, 6, 3, {}}, y{7, 6, 3, {}};
  std::mt19937 gen(9);
  for (int i = 0; i < 7 * 6 * 3; ++i) {
    x.data.push_back(static_cast<std::uint8_t>(gen() % 256));
    y.data.push_back(static_cast<std::uint8_t>(gen() % 256));
  }
  double s8 = ssim_metric(x, y);
  EXPECT_NEAR(s8, ssim_metric(to_float(x), to_float(y)), 1e-6);
  EXPECT_NEAR(ssim_metric(x, x), 1.0, 1e-12);
  ImageF c(2, 1, 1);
  c.data = {-0.5f, 1.5f};
  clamp01(c);
  EXPECT_EQ(c.data[0], 0.f);
  EXPECT_EQ(c.data[1], 1.f);
}
