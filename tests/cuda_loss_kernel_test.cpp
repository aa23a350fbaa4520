// The CUDA backend's photometric loss (L1 + D-SSIM) and training-target kernels, emulated
// (backend/cuda/emulation.h), against the CPU loss (train/loss.cpp): the loss values and
// the gradient within float tolerances, the gradient against central differences of the
// emulated loss itself, the same bits twice, and 8-bit targets with composite_float_into's
// bits (target_stage.cu is built without contraction).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "glint/backend/cuda/loss_stages.h"
#include "glint/backend/cuda/target_stage.h"
#include "glint/io/image_ops.h"
#include "glint/train/loss.h"
#include "glint/train/ssim.h"

using namespace glint;
using namespace glint::cuda;

namespace {

// A render and a target whose values differ by at least 0.02 everywhere, so that the L1
// term is differentiable along the finite-difference steps below.
struct ImagePair {
  ImageF render, target;
};
ImagePair random_pair(int w, int h, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  ImagePair p{ImageF(w, h, c), ImageF(w, h, c)};
  for (std::size_t i = 0; i < p.render.data.size(); ++i) {
    float a = 0.f, b = 0.f;
    do {
      a = U(rng);
      b = std::clamp(a + 0.3f * (U(rng) - 0.5f) + 0.1f * (U(rng) - 0.5f), 0.f, 1.f);
    } while (std::fabs(a - b) < 0.02f);
    p.render.data[i] = a;
    p.target.data[i] = b;
  }
  return p;
}

// The emulated loss with its gradient (grad empty: none), over host memory.
struct EmulatedLoss {
  std::vector<float> derivs, map, abs_diff, weighted;
  std::vector<double> partials, sums;

  // weights (masks): [w h] per-pixel weights with their sum; the target weighted already
  LossValue run(const ImageF& render, const ImageF& target, float lambda, std::vector<float>* grad,
                const std::vector<float>* weights = nullptr, double weight_sum = 0) {
    const auto count = static_cast<std::uint32_t>(render.data.size());
    derivs.assign(3 * std::size_t(count), -1.f);  // garbage that the kernels must overwrite
    map.assign(count, -1.f);
    abs_diff.assign(count, -1.f);
    partials.assign(2 * std::size_t(loss_sum_blocks(count)), -1.0);
    sums.assign(2, 0.0);
    if (grad) grad->assign(count, -1.f);
    weighted.assign(weights ? count : 0, -1.f);
    const auto span = [](std::vector<float>& v) { return DeviceSpan<float>{v.data(), static_cast<std::uint32_t>(v.size())}; };
    const LossSpans s{{render.data.data(), count},
                      {target.data.data(), count},
                      grad ? span(*grad) : DeviceSpan<float>{},
                      span(derivs),
                      span(map),
                      span(abs_diff),
                      {partials.data(), static_cast<std::uint32_t>(partials.size())},
                      {sums.data(), 2},
                      weights ? DeviceSpan<const float>{weights->data(), static_cast<std::uint32_t>(weights->size())}
                              : DeviceSpan<const float>{},
                      span(weighted)};
    photometric_loss_launches(
        s, loss_image(render.width, render.height, render.channels, lambda, weights ? weight_sum : -1.0));
    return loss_value(sums[0], sums[1], weights ? render.channels * weight_sum : double(count), lambda);
  }
};

double max_abs(std::span<const float> v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

}  // namespace

TEST(CudaLossKernels, MatchTheCpuLossAndItsGradient) {
  // the CPU blur that fuses its products as the kernels do (where the CPU has FMA)
  set_ssim_blur(SsimBlur::kFma);
  struct Case {
    int w, h, c;
    float lambda;
  };
  for (const Case& k : {Case{37, 29, 3, 0.2f}, Case{16, 16, 1, 0.2f}, Case{7, 5, 3, 0.5f}, Case{23, 13, 3, 0.f},
                        Case{40, 3, 4, 1.f}}) {
    SCOPED_TRACE(testing::Message() << k.w << "x" << k.h << "x" << k.c << " lambda " << k.lambda);
    const ImagePair p = random_pair(k.w, k.h, k.c, 11u + static_cast<unsigned>(k.w));
    ImageF cpu_grad;
    const LossValue cpu = photometric_loss(p.render, p.target, &cpu_grad, LossOptions{k.lambda});
    EmulatedLoss emu;
    std::vector<float> grad;
    const LossValue dev = emu.run(p.render, p.target, k.lambda, &grad);
    EXPECT_NEAR(dev.l1, cpu.l1, 1e-12 + 1e-9 * cpu.l1);
    EXPECT_NEAR(dev.ssim, cpu.ssim, 1e-6);
    EXPECT_NEAR(dev.total, cpu.total, 1e-6);
    const double scale = max_abs(cpu_grad.data);
    ASSERT_GT(scale, 0.0);
    ASSERT_EQ(grad.size(), cpu_grad.data.size());
    double worst = 0;
    for (std::size_t i = 0; i < grad.size(); ++i)
      worst = std::max(worst, std::fabs(static_cast<double>(grad[i]) - cpu_grad.data[i]));
    EXPECT_LT(worst, 1e-4 * scale) << "largest gradient difference (gradients up to " << scale << ")";
    // without a gradient: the same values (the map's two instantiations, with and without
    // its derivatives, may fuse differently under contraction)
    const LossValue no_grad = emu.run(p.render, p.target, k.lambda, nullptr);
    EXPECT_NEAR(no_grad.total, dev.total, 1e-9 * dev.total);
  }
  set_ssim_blur(SsimBlur::kAuto);
}

TEST(CudaLossKernels, GradientMatchesCentralDifferences) {
  const ImagePair p = random_pair(14, 11, 3, 5);
  EmulatedLoss emu;
  std::vector<float> grad;
  const float lambda = 0.2f;
  emu.run(p.render, p.target, lambda, &grad);
  std::mt19937 rng(9);
  for (int trial = 0; trial < 3; ++trial) {
    // a random direction, and the derivative along it both ways
    std::vector<float> dir(grad.size());
    for (float& d : dir) d = (rng() % 2 ? 1.f : -1.f) * (0.5f + static_cast<float>(rng() % 100) / 200.f);
    double analytic = 0;
    for (std::size_t i = 0; i < dir.size(); ++i) analytic += static_cast<double>(grad[i]) * dir[i];
    const float step = 2e-3f;
    ImageF plus = p.render, minus = p.render;
    for (std::size_t i = 0; i < dir.size(); ++i) {
      plus.data[i] += step * dir[i];
      minus.data[i] -= step * dir[i];
    }
    const double numeric =
        (emu.run(plus, p.target, lambda, nullptr).total - emu.run(minus, p.target, lambda, nullptr).total) /
        (2.0 * static_cast<double>(step));
    EXPECT_NEAR(analytic, numeric, 2e-3 * std::fabs(numeric) + 1e-5) << "trial " << trial;
  }
}

TEST(CudaLossKernels, SameBitsEveryRun) {
  const ImagePair p = random_pair(45, 33, 3, 21);
  EmulatedLoss emu;
  std::vector<float> g1, g2;
  const LossValue a = emu.run(p.render, p.target, 0.2f, &g1);
  const LossValue b = emu.run(p.render, p.target, 0.2f, &g2);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.ssim, b.ssim);
  EXPECT_EQ(g1, g2);
}

TEST(CudaTargetKernel, EightBitTargetsHaveTheCpusBits) {
  std::mt19937 rng(4);
  const std::array<float, 3> bg = {0.25f, 1.f, 0.5f};
  for (int ch = 1; ch <= 4; ++ch) {
    Image8 src;
    src.width = 19;
    src.height = 7;
    src.channels = ch;
    src.data.resize(static_cast<std::size_t>(19 * 7 * ch));
    for (auto& v : src.data) v = static_cast<std::uint8_t>(rng() % 256);
    ImageF cpu;
    composite_float_into(src, bg, cpu);
    std::vector<float> out(3 * 19 * 7, -1.f);
    device_target(DeviceSpan<const std::uint8_t>{src.data.data(), src.data.size()}, 19, 7, ch, bg,
                  DeviceSpan<float>{out.data(), out.size()});
    EXPECT_TRUE(std::ranges::equal(out, cpu.data)) << "channels " << ch;
  }
}
