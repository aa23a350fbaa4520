// The kernel families built without contraction (--fmad=false, cmake/GlintCuda.cmake) give
// the CPU's bits on a device too: Adam's update (train/adam_value.h; sqrtf and division
// are correctly rounded on the device), the training targets (composite_float_into) and
// coarse-to-fine's area downscale (resize_area). Their emulated twins are
// tests/cuda_adam_kernel_test.cpp, cuda_loss_kernel_test.cpp and cuda_refine_test.cpp.
// Skips (visibly) where no device is found, fails in scripts/gpu-check.sh (GLINT_REQUIRE_GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "glint/backend/cuda/cuda_backend.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/kernels/adam_kernel.h"
#include "glint/backend/cuda/target_stage.h"
#include "glint/backend/cuda/train_stages.h"
#include "glint/io/image_ops.h"
#include "glint/train/adam.h"

using namespace glint;

namespace {
bool skip_without_gpu() {
  if (cuda_device_present()) return false;
  if (std::getenv("GLINT_REQUIRE_GPU")) ADD_FAILURE() << "no CUDA device, and GLINT_REQUIRE_GPU is set";
  return true;
}
template <class T, class A>
cuda::DeviceBuffer<T> on_device(const std::vector<T, A>& v) {
  cuda::DeviceBuffer<T> b;
  cuda::upload(b, v.data(), v.size());
  return b;
}
template <class T>
std::vector<T> on_host(const cuda::DeviceBuffer<T>& b) {
  std::vector<T> v;
  cuda::download(b, v);
  return v;
}
}  // namespace

TEST(CudaExactKernelsDevice, AdamHasTheCpusBits) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  const std::size_t rows = 5000;
  const int width = 45, used = 24;  // SH rest at degree 2
  std::mt19937 rng(8);
  std::normal_distribution<float> N(0.f, 1.f);
  std::vector<float> p(rows * width);
  for (float& x : p) x = N(rng);
  std::vector<std::uint8_t> visible(rows);
  for (auto& b : visible) b = rng() % 4 != 0;
  Adam adam;
  adam.add_group("sh_rest", width, rows);
  auto dp = on_device(p), dm = on_device(std::vector<float>(p.size(), 0.f)), dv = on_device(std::vector<float>(p.size(), 0.f));
  const auto dvis = on_device(visible);
  cuda::DeviceBuffer<std::uint32_t> bad(1);
  const float lr = 1.6e-3f;
  for (std::uint64_t t = 1; t <= 4; ++t) {
    std::vector<float> grad(p.size());
    for (std::size_t r = 0; r < rows; ++r)
      for (int c = 0; c < width; ++c) grad[r * width + static_cast<std::size_t>(c)] = c < used ? N(rng) : 0.f;
    AdamParamGroup g{"sh_rest", p.data(), grad.data(), rows, width, lr, used};
    ASSERT_EQ(adam.step({&g, 1}, visible.data()), -1);
    const auto dg = on_device(grad);
    const AdamOptions& o = adam.options();
    const double td = static_cast<double>(t);
    const AdamConsts consts{o.beta1, 1.f - o.beta1, o.beta2, 1.f - o.beta2,
                            static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), td))), o.eps,
                            static_cast<float>(lr / (1.0 - std::pow(static_cast<double>(o.beta1), td)))};
    cuda::clear(bad);
    cuda::adam_group(cuda::AdamGroupSpans{dp.span(), dg.cspan(), dm.span(), dv.span(), static_cast<std::uint32_t>(width),
                                          static_cast<std::uint32_t>(used)},
                     consts, dvis.cspan(), bad.span());
    cuda::check_launches("adam");
  }
  EXPECT_TRUE(std::ranges::equal(on_host(dp), p));
  EXPECT_TRUE(std::ranges::equal(on_host(dm), adam.group("sh_rest").m));
  EXPECT_TRUE(std::ranges::equal(on_host(dv), adam.group("sh_rest").v));
}

TEST(CudaExactKernelsDevice, TargetsAndDownscalesHaveTheCpusBits) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  std::mt19937 rng(12);
  const std::array<float, 3> bg = {0.3f, 0.9f, 0.05f};
  for (int ch = 1; ch <= 4; ++ch) {
    Image8 img;
    img.width = 301;
    img.height = 203;
    img.channels = ch;
    img.data.resize(static_cast<std::size_t>(img.width) * img.height * ch);
    for (auto& v : img.data) v = static_cast<std::uint8_t>(rng() % 256);
    const auto src = on_device(img.data);
    ImageF cpu;
    composite_float_into(img, bg, cpu);
    cuda::DeviceBuffer<float> target(3 * static_cast<std::size_t>(img.width) * img.height);
    cuda::device_target(src.cspan(), img.width, img.height, ch, bg, target.span());
    EXPECT_TRUE(std::ranges::equal(on_host(target), cpu.data)) << ch << " channels";
    for (int factor : {2, 3, 4}) {
      const int w = img.width / factor, h = img.height / factor;
      const Image8 small = resize_area(img, w, h);
      cuda::DeviceBuffer<std::uint8_t> out(small.data.size());
      cuda::device_area_downscale(src.cspan(), img.width, img.height, ch, w, h, out.span());
      EXPECT_TRUE(std::ranges::equal(on_host(out), small.data)) << ch << " channels, 1/" << factor;
    }
  }
}
