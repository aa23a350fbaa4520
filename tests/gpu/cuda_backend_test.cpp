// The CUDA backend class (backend/cuda/cuda_backend.cu) and the device loss on a real GPU:
// forward and backward through glint::Backend against the CPU backend (colour, alpha and
// the geometry outputs), the statistic it leaves to the CPU, what it reports of the device,
// its stage times (device clock) against the calls' wall time, and the loss against the
// CPU loss.
// Skips (visibly) where no device is found, fails in scripts/gpu-check.sh (GLINT_REQUIRE_GPU).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <vector>

#include "glint/backend/cuda/cuda_backend.h"
#include "glint/backend/cuda/loss_stage.h"
#include "glint/core/error.h"
#include "glint/train/loss.h"
#include "device_tolerances.h"
#include "raster_test_util.h"
#include "reference/scenes.h"

using namespace glint;

namespace {
bool skip_without_gpu() {
  if (cuda_device_present()) return false;
  if (std::getenv("GLINT_REQUIRE_GPU")) ADD_FAILURE() << "no CUDA device, and GLINT_REQUIRE_GPU is set";
  return true;
}
template <class T, class A>
cuda::DeviceBuffer<T> upload(const std::vector<T, A>& v) {
  cuda::DeviceBuffer<T> b(v.size());
  b.resize(v.size());
  cuda::check(cudaMemcpy(b.data(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  return b;
}
}  // namespace

TEST(CudaBackendDevice, ForwardAndBackwardMatchTheCpuBackend) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  GaussianModel m = test::random_scene(5000, 31);
  m.sh_degree = 2;
  const Camera cam = test::look_at(200, 150, 180, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  rs.background[2] = 1.f;
  auto gpu = make_cuda_backend();
  auto cpu = make_cpu_backend();
  const RenderOutput g = gpu->forward(m, cam, rs), c = cpu->forward(m, cam, rs);
  // a contracted multiply-add may move a ceil or a tile test (device_tolerances.h)
  EXPECT_LE(test::count_gap(g.num_instances, c.num_instances), test::instance_margin(c.num_instances));
  ASSERT_EQ(g.radii.size(), c.radii.size());
  std::size_t radii_off = 0;
  for (std::size_t i = 0; i < g.radii.size(); ++i) {
    radii_off += g.radii[i] != c.radii[i];
    EXPECT_LE(std::abs(g.radii[i] - c.radii[i]), 1) << "splat " << i;
  }
  EXPECT_LE(radii_off, test::count_margin(g.radii.size()));
  const std::size_t slack = static_cast<std::size_t>(cam.width * cam.height) / 2000 + 1;
  EXPECT_TRUE(test::images_close("rgb", g.rgb.data, c.rgb.data, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("alpha", g.alpha.data, c.alpha.data, 1e-4, slack));
  const test::Upstream up = test::random_upstream(cam.width, cam.height, rs, 3);
  ModelGrad gg, cg;
  gpu->backward(m, cam, rs, g, up.in(), gg);
  cpu->backward(m, cam, rs, c, up.in(), cg);
  EXPECT_TRUE(test::grads_close("means", gg.means, cg.means, 1e-3, 6 * slack));
  EXPECT_TRUE(test::grads_close("opacity", gg.opacity_logits, cg.opacity_logits, 1e-3, slack));
  EXPECT_TRUE(test::grads_close("mean2d", gg.mean2d, cg.mean2d, 1e-3, 4 * slack));
  // The geometry outputs on the device, with their gradients, against the CPU backend.
  RenderSettings geo = rs;
  geo.want_depth = geo.want_median_depth = geo.want_normal = geo.want_distortion = geo.want_count = true;
  const RenderOutput gg2 = gpu->forward(m, cam, geo), cg2 = cpu->forward(m, cam, geo);
  EXPECT_TRUE(test::images_close("depth", gg2.depth.data, cg2.depth.data, 4e-4, slack));
  EXPECT_TRUE(test::images_close("median", gg2.median_depth.data, cg2.median_depth.data, 4e-4, slack));
  EXPECT_TRUE(test::images_close("normal", gg2.normal.data, cg2.normal.data, 1e-4, 3 * slack));
  EXPECT_TRUE(test::images_close("distortion", gg2.distortion.data, cg2.distortion.data, 4e-4, slack));
  EXPECT_TRUE(test::images_close("count", gg2.count.data, cg2.count.data, 0.5, slack));
  RenderSettings geo_grad = geo;
  geo_grad.want_count = false;
  const RenderOutput gg3 = gpu->forward(m, cam, geo_grad), cg3 = cpu->forward(m, cam, geo_grad);
  const test::Upstream gup = test::random_upstream(cam.width, cam.height, geo_grad, 4);
  ModelGrad ggg, cgg;
  gpu->backward(m, cam, geo_grad, gg3, gup.in(), ggg);
  cpu->backward(m, cam, geo_grad, cg3, gup.in(), cgg);
  EXPECT_TRUE(test::grads_close("geometry means", ggg.means, cgg.means, 1e-3, 6 * slack));
  EXPECT_TRUE(test::grads_close("geometry quats", ggg.quats, cgg.quats, 1e-3, 8 * slack));
  EXPECT_TRUE(test::grads_close("geometry opacity", ggg.opacity_logits, cgg.opacity_logits, 1e-3, slack));
  // Shadow maps' renders: median depth only, stopping at the median.
  RenderSettings shadow;
  shadow.sh_degree = 0;
  shadow.want_alpha = false;
  shadow.want_median_depth = shadow.median_depth_only = true;
  shadow.want_rgb = false;
  std::vector<RenderOutput> gv, cv;
  gpu->forward_views(m, {cam, cam}, shadow, gv);
  cpu->forward_views(m, {cam, cam}, shadow, cv);
  ASSERT_EQ(gv.size(), 2u);
  EXPECT_TRUE(gv[1].rgb.data.empty() && cv[1].rgb.data.empty()) << "want_rgb = false leaves the colour out";
  EXPECT_TRUE(test::images_close("shadow median", gv[1].median_depth.data, cv[1].median_depth.data, 4e-4, slack));
  // AbsGS's statistic has no device kernel: such a render comes whole from the CPU backend.
  RenderSettings abs = rs;
  abs.want_mean2d_abs = true;
  const RenderOutput ga = gpu->forward(m, cam, abs), ca = cpu->forward(m, cam, abs);
  EXPECT_EQ(ga.rgb.data, ca.rgb.data);
  // What eval.json reports of the device.
  EXPECT_FALSE(gpu->device().empty());
  EXPECT_GT(gpu->peak_device_memory_bytes(), static_cast<long long>(m.size() * sizeof(float) * 3));
}

// The device clock over the stages, which benchmarks print beside wall time: positive after
// each timed call, within that call's wall time, cleared by a render the CPU draws, and
// absent on the CPU backend.
TEST(CudaBackendDevice, StageTimesArePositiveAndWithinTheCallsWallTime) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  };
  GaussianModel m = test::random_scene(20000, 7);
  const Camera cam = test::look_at(400, 300, 360, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  auto gpu = make_cuda_backend();
  EXPECT_LT(gpu->last_stage_times().forward_ms, 0) << "nothing timed yet";
  for (int round = 0; round < 2; ++round) {  // the first round pays for allocations
    auto t0 = clock::now();
    const RenderOutput o = gpu->forward(m, cam, rs);
    const double wall_f = ms_since(t0);
    const Backend::StageTimes f = gpu->last_stage_times();
    EXPECT_GT(f.forward_ms, 0);
    EXPECT_LE(f.forward_ms, wall_f);
    EXPECT_LT(f.backward_ms, 0) << "no backward yet";
    const test::Upstream up = test::random_upstream(cam.width, cam.height, rs, 5);
    ModelGrad g;
    t0 = clock::now();
    gpu->backward(m, cam, rs, o, up.in(), g);
    const double wall_b = ms_since(t0);
    const Backend::StageTimes fb = gpu->last_stage_times();
    EXPECT_EQ(fb.forward_ms, f.forward_ms) << "the forward's time stays until the next forward";
    EXPECT_GT(fb.backward_ms, 0);
    EXPECT_LE(fb.backward_ms, wall_b);
  }
  RenderSettings abs = rs;  // drawn by the CPU backend: not timed on the device
  abs.want_mean2d_abs = true;
  (void)gpu->forward(m, cam, abs);
  EXPECT_LT(gpu->last_stage_times().forward_ms, 0);
  auto cpu = make_cpu_backend();
  (void)cpu->forward(m, cam, rs);
  EXPECT_LT(cpu->last_stage_times().forward_ms, 0);
}

TEST(CudaBackendDevice, LossMatchesTheCpuLoss) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  ImageF a(301, 203, 3), b(301, 203, 3);
  for (float& v : a.data) v = U(rng);
  for (std::size_t i = 0; i < b.data.size(); ++i) b.data[i] = 0.7f * a.data[i] + 0.3f * U(rng);
  ImageF cpu_grad;
  const LossValue cpu = photometric_loss(a, b, &cpu_grad, LossOptions{0.2f});
  const auto da = upload(a.data), db = upload(b.data);
  cuda::DeviceBuffer<float> dg(a.data.size());
  dg.resize(a.data.size());
  cuda::LossBuffers bufs;
  const LossValue dev = cuda::device_photometric_loss(da.cspan(), db.cspan(), a.width, a.height, 3, 0.2f, dg.span(), bufs);
  EXPECT_NEAR(dev.total, cpu.total, 1e-6);
  EXPECT_NEAR(dev.ssim, cpu.ssim, 1e-6);
  std::vector<float> g(a.data.size());
  cuda::check(cudaMemcpy(g.data(), dg.data(), g.size() * sizeof(float), cudaMemcpyDeviceToHost), "grad");
  EXPECT_TRUE(test::grads_close("d_rgb", g, cpu_grad.data, 1e-3, 0));
}
