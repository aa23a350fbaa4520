// The device training session with the geometry regularisers (normal consistency, depth
// distortion, flattening: the lightable preset's), run against the emulator: one step
// against the CPU session, two runs bit-identical, and a short lightable training run with
// the Trainer that must climb. The scene is training_session_steps.h's (the bundled demo at
// 25x25 pixels with a few hundred splats), so that the emulated kernels run in seconds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/cuda/device_training_session.h"
#include "glint/io/image_ops.h"
#include "glint/train/metrics.h"
#include "glint/train/run_options.h"
#include "glint/train/trainer.h"
#include "model_fixture.h"
#include "raster_test_util.h"
#include "device_tolerances.h"
#include "emulated_cuda_trainer.h"
#include "training_session_steps.h"

using namespace glint;
using test::Scene;

namespace {

// The lightable preset's options for a run laid out for `schedule_steps`.
TrainOptions lightable(const Scene& sc, long schedule_steps) {
  RunOptions r;
  r.preset = "lightable";
  r.schedule_steps = schedule_steps;
  return resolve_train_options(r, sc.data);
}
test::GeometryWeights weights_of(const TrainOptions& o) { return {o.normal_weight, o.distortion_weight, o.flatten_weight}; }

}  // namespace

TEST(CudaTrainingGeometry, OneLightableStepMatchesTheCpuSession) {
  Scene sc(400);
  const TrainOptions o = lightable(sc, 3000);
  ASSERT_GT(o.normal_weight, 0.f);
  ASSERT_GT(o.distortion_weight, 0.f);
  const TrainingSetup setup = sc.setup();
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
  auto emu = cuda::make_device_training_session(setup, sc.initial());
  const test::GeometryStepOut a = test::run_geometry_step(*cpu, weights_of(o), 3, 1),
                              b = test::run_geometry_step(*emu, weights_of(o), 3, 1);
  EXPECT_NEAR(b.photometric, a.photometric, 1e-5 * a.photometric);
  EXPECT_NEAR(b.normal, a.normal, 1e-4 * a.normal);
  EXPECT_NEAR(b.distortion, a.distortion, 1e-4 * a.distortion);
  EXPECT_NEAR(b.total, a.total, 1e-5 * a.total);
  EXPECT_GT(a.normal, 0.0);
  EXPECT_GT(a.distortion, 0.0);
  EXPECT_LE(test::count_gap(std::int64_t(b.visible), std::int64_t(a.visible)),
            std::int64_t(test::count_margin(cpu->size())));  // zero without contraction
  EXPECT_EQ(b.adam, -1);
  const SplatSet& sa = cpu->state();
  const SplatSet& sb = emu->state();
  // Adam's first moment after one step is (1 - beta1) times the gradient
  const std::size_t slack = sa.size() / 100 + 1;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_TRUE(test::grads_close(kParamGroupNames[gi], sb.adam.groups()[gi].m, sa.adam.groups()[gi].m, 1e-3,
                                  slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
  }
  // the regularisers reach the gradients: without them the means' moments differ
  auto plain = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
  TrainOptions off = o;
  off.normal_weight = off.distortion_weight = 0.f;
  test::run_geometry_step(*plain, weights_of(off), 3, 1);
  EXPECT_FALSE(test::grads_close("means without the regularisers", plain->state().adam.groups()[kMeans].m,
                                 sa.adam.groups()[kMeans].m, 1e-3, slack * 3));
}

// --normal-edge through both sessions: the device's term equals the CPU's, and both drop
// the skipped pixels' terms (lower than with the test off).
TEST(CudaTrainingGeometry, OneLightableStepWithTheEdgeTestMatchesTheCpuSession) {
  Scene sc(400);
  const TrainOptions o = lightable(sc, 3000);
  test::GeometryWeights w = weights_of(o), w_off = w;
  w.normal_edge = 0.02f;
  const TrainingSetup setup = sc.setup();
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
  auto cpu_off = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
  auto emu = cuda::make_device_training_session(setup, sc.initial());
  const test::GeometryStepOut a = test::run_geometry_step(*cpu, w, 3, 1), b = test::run_geometry_step(*emu, w, 3, 1),
                              off = test::run_geometry_step(*cpu_off, w_off, 3, 1);
  EXPECT_GT(a.normal, 0.0);
  EXPECT_LT(a.normal, off.normal);
  EXPECT_NEAR(b.normal, a.normal, 1e-4 * a.normal);
  EXPECT_NEAR(b.total, a.total, 1e-5 * a.total);
  EXPECT_EQ(b.adam, -1);
  const std::size_t slack = cpu->state().size() / 100 + 1;
  EXPECT_TRUE(test::grads_close("means", emu->state().adam.groups()[kMeans].m, cpu->state().adam.groups()[kMeans].m,
                                1e-3, slack * 3));
}

TEST(CudaTrainingGeometry, TwoRunsGiveTheSameBits) {
  Scene sc(300);
  const TrainOptions o = lightable(sc, 3000);
  const TrainingSetup setup = sc.setup();
  auto a = cuda::make_device_training_session(setup, sc.initial());
  auto b = cuda::make_device_training_session(setup, sc.initial());
  for (std::size_t step = 1; step <= 3; ++step) {
    const test::GeometryStepOut x = test::run_geometry_step(*a, weights_of(o), step, 1),
                                y = test::run_geometry_step(*b, weights_of(o), step, 1);
    ASSERT_EQ(x.total, y.total) << "step " << step;
  }
  test::expect_same_model(a->state().model, b->state().model);
}

// The lightable preset's run (regularisers from a sixth and a third of the schedule, random
// backgrounds) with the Trainer on the emulated device session and on the CPU: the device
// run climbs, and ends where the CPU's does.
TEST(CudaTrainingGeometry, LightableTrainingClimbsAsOnTheCpu) {
  Scene sc(200);
  TrainOptions o = lightable(sc, 240);
  o.steps = 120;
  o.seed = 5;
  ASSERT_LT(o.normal_from, 60);
  ASSERT_LT(o.distortion_from, 90);
  test::EmulatedCudaBackend backend;
  Trainer t(sc.data, o, backend, sc.images);
  const double first = test::mean_train_psnr(sc, t.model());
  while (t.current_step() < o.steps) t.step();
  const double last = test::mean_train_psnr(sc, t.model());
  auto cpu_backend = make_cpu_backend(1);
  Trainer c(sc.data, o, *cpu_backend, sc.images);
  while (c.current_step() < o.steps) c.step();
  const double cpu_last = test::mean_train_psnr(sc, c.model());
  std::printf("emulated lightable training: %.2f dB -> %.2f dB (CPU: %.2f dB), %zu splats\n", first, last, cpu_last,
              t.model().size());
  EXPECT_GT(last, first + 0.5) << "first " << first << " dB, last " << last << " dB";
  EXPECT_NEAR(last, cpu_last, 0.2);
}
