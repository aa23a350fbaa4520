// Masks in the photometric loss (train/loss.h LossWeights, train/ssim.h SsimWeights) on the
// CPU and on the emulated CUDA kernels (backend/cuda/kernels/mask_kernels.h and the loss
// kernels' weights): a pixel of weight 0 changes neither the loss nor its gradient, whatever
// the render holds there, and gets a zero gradient; weights of 1 give the unmasked loss's
// bits; the gradient matches finite differences; the device matches the CPU; the masked
// evaluation metrics ignore what the mask hides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "glint/backend/cuda/loss_stages.h"
#include "glint/train/loss.h"
#include "glint/train/metrics.h"
#include "glint/train/ssim.h"

using namespace glint;

namespace {

struct Masked {
  ImageF render, target;  // target as the session keeps it: weighted
  std::vector<float> w;
  double sum = 0;
  Image8 mask;
};

// A render, a target and a mask with a hole of zeros (a rectangle), soft weights elsewhere
// at its edge, ones beyond; render and target differ by at least 0.02 everywhere.
Masked random_masked(int width, int height, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  Masked m{ImageF(width, height, c), ImageF(width, height, c), {}, 0, {}};
  for (std::size_t i = 0; i < m.render.data.size(); ++i) {
    float a = 0.f, b = 0.f;
    do {
      a = U(rng);
      b = std::clamp(a + 0.3f * (U(rng) - 0.5f), 0.f, 1.f);
    } while (std::fabs(a - b) < 0.02f);
    m.render.data[i] = a;
    m.target.data[i] = b;
  }
  m.mask.width = width;
  m.mask.height = height;
  m.mask.channels = 1;
  m.mask.data.resize(static_cast<std::size_t>(width) * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const bool hole = x >= width / 4 && x < width / 2 + 2 && y >= height / 3 && y < height - 3;
      const bool rim = x == width / 4 - 1 || y == height / 3 - 1;
      m.mask.data[static_cast<std::size_t>(y) * width + x] = hole ? 0 : rim ? static_cast<std::uint8_t>(rng() % 256) : 255;
    }
  m.w.resize(m.mask.data.size());
  for (std::size_t p = 0; p < m.w.size(); ++p) {
    m.w[p] = m.mask.data[p] * (1.f / 255.f);
    m.sum += m.w[p];
  }
  apply_weights(m.target, m.w.data());
  return m;
}

// Values of pixels whose weight is 0 replaced by anything.
void scribble_hole(ImageF& img, const std::vector<float>& w, unsigned seed) {
  std::mt19937 rng(seed);
  for (std::size_t p = 0; p < w.size(); ++p)
    if (w[p] == 0.f)
      for (int k = 0; k < img.channels; ++k) img.data[p * img.channels + k] = static_cast<float>(rng() % 1000) / 250.f - 1.f;
}

LossValue cpu_loss(const Masked& m, const ImageF& render, float lambda, ImageF* grad) {
  const LossWeights lw{m.w.data(), m.sum};
  return photometric_loss(render, m.target, grad, LossOptions{lambda}, nullptr, &lw);
}

// The emulated device loss with weights (loss_stages.h).
LossValue device_loss(const Masked& m, const ImageF& render, float lambda, std::vector<float>* grad) {
  using namespace glint::cuda;
  const auto count = static_cast<std::uint32_t>(render.data.size());
  std::vector<float> derivs(3 * std::size_t(count), -1.f), map(count, -1.f), abs_diff(count, -1.f), weighted(count, -1.f);
  std::vector<double> partials(2 * std::size_t(loss_sum_blocks(count)), -1.0), sums(2, 0.0);
  if (grad) grad->assign(count, -1.f);
  const auto span = [](std::vector<float>& v) { return DeviceSpan<float>{v.data(), static_cast<std::uint32_t>(v.size())}; };
  const LossSpans s{{render.data.data(), count},
                    {m.target.data.data(), count},
                    grad ? span(*grad) : DeviceSpan<float>{},
                    span(derivs),
                    span(map),
                    span(abs_diff),
                    {partials.data(), static_cast<std::uint32_t>(partials.size())},
                    {sums.data(), 2},
                    {m.w.data(), static_cast<std::uint32_t>(m.w.size())},
                    span(weighted)};
  photometric_loss_launches(s, loss_image(render.width, render.height, render.channels, lambda, m.sum));
  return loss_value(sums[0], sums[1], render.channels * m.sum, lambda);
}

}  // namespace

TEST(MaskedLoss, MaskedPixelsChangeNothingOnTheCpu) {
  for (float lambda : {0.2f, 0.f, 1.f}) {
    SCOPED_TRACE(lambda);
    const Masked m = random_masked(31, 23, 3, 4);
    ImageF g1, g2;
    const LossValue a = cpu_loss(m, m.render, lambda, &g1);
    ImageF other = m.render;
    scribble_hole(other, m.w, 9);
    const LossValue b = cpu_loss(m, other, lambda, &g2);
    EXPECT_EQ(a.total, b.total);
    EXPECT_EQ(a.l1, b.l1);
    EXPECT_EQ(a.ssim, b.ssim);
    EXPECT_EQ(std::vector<float>(g1.data.begin(), g1.data.end()), std::vector<float>(g2.data.begin(), g2.data.end()));
    std::size_t zero = 0, hole = 0;
    for (std::size_t p = 0; p < m.w.size(); ++p)
      if (m.w[p] == 0.f) {
        ++hole;
        for (int k = 0; k < 3; ++k) zero += g1.data[p * 3 + k] == 0.f;
      }
    EXPECT_GT(hole, 50u);
    EXPECT_EQ(zero, 3 * hole);
    // and an unmasked pixel does change it
    ImageF changed = m.render;
    changed.data[0] += 0.25f;
    EXPECT_NE(cpu_loss(m, changed, lambda, nullptr).total, a.total);
  }
}

TEST(MaskedLoss, WeightsOfOneGiveTheUnmaskedBits) {
  Masked m = random_masked(26, 19, 3, 2);
  ImageF target = m.target;  // an arbitrary target: weights of 1 leave it as it is
  std::fill(m.w.begin(), m.w.end(), 1.f);
  m.sum = static_cast<double>(m.w.size());
  ImageF g_plain, g_ones;
  const LossValue plain = photometric_loss(m.render, target, &g_plain, LossOptions{0.2f});
  const LossValue ones = cpu_loss(m, m.render, 0.2f, &g_ones);
  EXPECT_EQ(plain.total, ones.total);
  EXPECT_EQ(std::vector<float>(g_plain.data.begin(), g_plain.data.end()),
            std::vector<float>(g_ones.data.begin(), g_ones.data.end()));
}

TEST(MaskedLoss, AllMaskedIsNoLossAndNoGradient) {
  Masked m = random_masked(12, 9, 3, 5);
  std::fill(m.w.begin(), m.w.end(), 0.f);
  m.sum = 0;
  apply_weights(m.target, m.w.data());
  ImageF g;
  const LossValue v = cpu_loss(m, m.render, 0.2f, &g);
  EXPECT_EQ(v.total, 0.0);
  for (float x : g.data) EXPECT_EQ(x, 0.f);
}

// The weighted SSIM's gradient in double against central differences of its value, and
// the float loss's along random directions.
TEST(MaskedLoss, GradientMatchesCentralDifferences) {
  const Masked m = random_masked(17, 13, 3, 7);
  const int n = static_cast<int>(m.render.data.size());
  std::vector<double> a(n), b(n), w(m.w.begin(), m.w.end()), grad(n);
  for (int i = 0; i < n; ++i) {
    a[i] = m.render.data[i];
    b[i] = m.target.data[i];
  }
  // SsimWeights' contract: the caller passes the weighted image, gets d/d(unweighted)
  auto value = [&](const std::vector<double>& x, std::vector<double>* g) {
    std::vector<double> xw(x);
    for (int i = 0; i < n; ++i) xw[i] *= w[i / 3];
    const SsimWeights<double> sw{w.data(), m.sum};
    return ssim<double>(xw.data(), b.data(), 17, 13, 3, g ? g->data() : nullptr, nullptr, nullptr, &sw);
  };
  value(a, &grad);
  for (int i : {0, 40, 77, 150, 333, 600}) {
    std::vector<double> p = a, q = a;
    p[i] += 1e-6;
    q[i] -= 1e-6;
    const double numeric = (value(p, nullptr) - value(q, nullptr)) / 2e-6;
    EXPECT_NEAR(grad[i], numeric, 1e-7 + 1e-5 * std::fabs(numeric)) << i;
  }
  ImageF g;
  cpu_loss(m, m.render, 0.2f, &g);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<float> dir(g.data.size());
    for (float& d : dir) d = (rng() % 2 ? 1.f : -1.f) * (0.5f + static_cast<float>(rng() % 100) / 200.f);
    double analytic = 0;
    for (std::size_t i = 0; i < dir.size(); ++i) analytic += static_cast<double>(g.data[i]) * dir[i];
    const float step = 2e-3f;
    ImageF plus = m.render, minus = m.render;
    for (std::size_t i = 0; i < dir.size(); ++i) {
      plus.data[i] += step * dir[i];
      minus.data[i] -= step * dir[i];
    }
    const double numeric = (cpu_loss(m, plus, 0.2f, nullptr).total - cpu_loss(m, minus, 0.2f, nullptr).total) /
                           (2.0 * static_cast<double>(step));
    EXPECT_NEAR(analytic, numeric, 2e-3 * std::fabs(numeric) + 1e-5) << "trial " << trial;
  }
}

TEST(MaskedLoss, DeviceKernelsMatchTheCpuAndIgnoreTheHole) {
  set_ssim_blur(SsimBlur::kFma);  // the CPU blur that fuses its products as the kernels do
  for (float lambda : {0.2f, 0.f}) {
    SCOPED_TRACE(lambda);
    const Masked m = random_masked(37, 29, 3, 8);
    ImageF cpu_grad;
    const LossValue cpu = cpu_loss(m, m.render, lambda, &cpu_grad);
    std::vector<float> grad, grad2;
    const LossValue dev = device_loss(m, m.render, lambda, &grad);
    EXPECT_NEAR(dev.l1, cpu.l1, 1e-9);
    EXPECT_NEAR(dev.ssim, cpu.ssim, 1e-6);
    EXPECT_NEAR(dev.total, cpu.total, 1e-6);
    double scale = 0, worst = 0;
    for (std::size_t i = 0; i < grad.size(); ++i) {
      scale = std::max(scale, std::fabs(double(cpu_grad.data[i])));
      worst = std::max(worst, std::fabs(double(grad[i]) - cpu_grad.data[i]));
    }
    EXPECT_LT(worst, 1e-4 * scale);
    ImageF other = m.render;
    scribble_hole(other, m.w, 11);
    const LossValue dev2 = device_loss(m, other, lambda, &grad2);
    EXPECT_EQ(dev2.total, dev.total);
    EXPECT_EQ(grad2, grad);
    for (std::size_t p = 0; p < m.w.size(); ++p) {
      if (m.w[p] != 0.f) continue;
      for (int k = 0; k < 3; ++k) ASSERT_EQ(grad[p * 3 + k], 0.f) << p;
    }
  }
  set_ssim_blur(SsimBlur::kAuto);
}

TEST(MaskedMetrics, ScoreOnlyWhatTheMaskKeeps) {
  const Masked m = random_masked(40, 30, 3, 12);
  ImageF a = m.render, b = m.render;
  for (float& v : b.data) v = std::clamp(v + 0.05f, 0.f, 1.f);
  const double p = psnr_masked(a, b, m.mask), s = ssim_masked(a, b, m.mask);
  scribble_hole(b, m.w, 3);
  EXPECT_EQ(psnr_masked(a, b, m.mask), p);
  EXPECT_EQ(ssim_masked(a, b, m.mask), s);
  EXPECT_GT(p, psnr(a, b));  // the scribbled hole counts without the mask
  Image8 ones = m.mask;
  std::fill(ones.data.begin(), ones.data.end(), 255);
  EXPECT_NEAR(psnr_masked(a, b, ones), psnr(a, b), 1e-9);
  EXPECT_NEAR(ssim_masked(a, b, ones), ssim_metric(a, b), 1e-12);
  Image8 none = m.mask;
  std::fill(none.data.begin(), none.data.end(), 0);
  EXPECT_EQ(psnr_masked(a, b, none), std::numeric_limits<double>::infinity());
}
