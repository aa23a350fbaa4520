// The CUDA backend's Adam kernel, emulated, against the CPU's Adam::step: the same bits
// for parameters and both moments, with a visibility mask and a used width, over several
// steps; and its count of values left non-finite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "glint/backend/cuda/kernels/adam_kernel.h"
#include "glint/backend/cuda/launch.h"
#include "glint/train/adam.h"

using namespace glint;
using namespace glint::cuda;

namespace {

// The constants Adam::step derives for step t (adam.cpp's prepare()).
AdamConsts consts_for(const AdamOptions& o, float lr, std::uint64_t t) {
  const double td = static_cast<double>(t);
  return {o.beta1, 1.f - o.beta1, o.beta2, 1.f - o.beta2,
          static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), td))), o.eps,
          static_cast<float>(lr / (1.0 - std::pow(static_cast<double>(o.beta1), td)))};
}

}  // namespace

TEST(CudaAdamKernel, SameBitsAsTheCpuAdam) {
  const std::size_t rows = 60;
  const int width = 45, used = 9;  // SH rest at degree 1
  std::mt19937 rng(3);
  std::normal_distribution<float> N(0.f, 1.f);
  std::vector<float> p_cpu(rows * width), p_emu;
  for (float& x : p_cpu) x = N(rng);
  p_emu = p_cpu;
  std::vector<std::uint8_t> visible(rows);
  for (auto& b : visible) b = rng() % 3 != 0;
  Adam adam;
  adam.add_group("sh_rest", width, rows);
  std::vector<float> m(rows * width, 0.f), v(rows * width, 0.f);
  const float lr = 2.5e-3f;
  for (std::uint64_t t = 1; t <= 5; ++t) {
    std::vector<float> grad(rows * width);
    for (std::size_t r = 0; r < rows; ++r)
      for (int c = 0; c < width; ++c) grad[r * width + static_cast<std::size_t>(c)] = c < used ? N(rng) : 0.f;
    AdamParamGroup g{"sh_rest", p_cpu.data(), grad.data(), rows, width, lr, used};
    ASSERT_EQ(adam.step({&g, 1}, visible.data()), -1);
    std::uint32_t bad = 0;
    const auto n = static_cast<std::uint32_t>(rows * width);
    const AdamGroupSpans spans{{p_emu.data(), n}, {grad.data(), n}, {m.data(), n}, {v.data(), n},
                               static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(used)};
    launch(adam_kernel, shape_for(n, 128), spans, consts_for(adam.options(), lr, t),
           DeviceSpan<const std::uint8_t>{visible.data(), static_cast<std::uint32_t>(rows)},
           DeviceSpan<std::uint32_t>{&bad, 1});
    EXPECT_EQ(bad, 0u);
  }
  EXPECT_EQ(p_emu, p_cpu);
  EXPECT_EQ(m, adam.group("sh_rest").m);
  EXPECT_EQ(v, adam.group("sh_rest").v);
}

TEST(CudaAdamKernel, CountsValuesLeftNonFinite) {
  std::vector<float> p = {1.f, 2.f, 3.f, 4.f};
  const std::vector<float> g = {0.1f, std::numeric_limits<float>::infinity(), 0.2f,
                                std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> m(4, 0.f), v(4, 0.f);
  std::uint32_t bad = 0;
  launch(adam_kernel, shape_for(4, 64), AdamGroupSpans{{p.data(), 4}, {g.data(), 4}, {m.data(), 4}, {v.data(), 4}, 1, 1},
         consts_for(AdamOptions{}, 0.01f, 1), DeviceSpan<const std::uint8_t>{}, DeviceSpan<std::uint32_t>{&bad, 1});
  EXPECT_EQ(bad, 2u);
  EXPECT_TRUE(std::isfinite(p[0]) && std::isfinite(p[2]));
}
