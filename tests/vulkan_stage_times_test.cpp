// The Vulkan backend's device clock over its stages (Backend::last_stage_times, timestamp
// queries around the forward's and the backward's stages), on both CPU drivers under the
// validation layer: none before a render, the forward's after it (within the call's wall
// time) and kept through the backward, whose own follows; none for a render the backend
// hands to the CPU. The CUDA backend's twin is tests/gpu/cuda_backend_test.cpp.
#include <gtest/gtest.h>

#include <chrono>

#include "glint/backend/backend.h"
#include "raster_test_util.h"
#include "reference/scenes.h"
#include "vulkan_test_support.h"

using namespace glint;

namespace {
class VulkanStageTimes : public test::VulkanTest {};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

TEST_P(VulkanStageTimes, ForwardAndBackwardAreTimedOnTheDevice) {
  const GaussianModel m = test::random_scene(300, 7);
  const Camera cam = test::look_at(48, 32, 40, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings rs;
  auto be = test::vulkan_backend_on(driver());
  EXPECT_LT(be->last_stage_times().forward_ms, 0) << "nothing timed yet";
  EXPECT_LT(be->last_stage_times().backward_ms, 0);
  for (int round = 0; round < 2; ++round) {
    auto t0 = Clock::now();
    const RenderOutput o = be->forward(m, cam, rs);
    const double wall_f = ms_since(t0);
    const Backend::StageTimes f = be->last_stage_times();
    EXPECT_GT(f.forward_ms, 0);
    EXPECT_LE(f.forward_ms, wall_f);
    EXPECT_LT(f.backward_ms, 0) << "no backward of this render yet";
    const test::Upstream up = test::random_upstream(cam.width, cam.height, rs, 5);
    ModelGrad g;
    t0 = Clock::now();
    be->backward(m, cam, rs, o, up.in(), g);
    const double wall_b = ms_since(t0);
    const Backend::StageTimes fb = be->last_stage_times();
    EXPECT_EQ(fb.forward_ms, f.forward_ms) << "the forward's time stays until the next forward";
    EXPECT_GT(fb.backward_ms, 0);
    EXPECT_LE(fb.backward_ms, wall_b);
  }
  RenderSettings abs = rs;  // drawn by the CPU backend it keeps: not timed on the device
  abs.want_mean2d_abs = true;
  (void)be->forward(m, cam, abs);
  EXPECT_LT(be->last_stage_times().forward_ms, 0);
}

GLINT_VULKAN_DRIVERS(VulkanStageTimes);
