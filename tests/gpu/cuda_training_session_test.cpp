// The device training session (backend/cuda/device_training_session.h) on a real GPU: one
// step against the CPU session (loss, gradients through Adam's first moments, parameters),
// two runs bit-identical, and refinement's counts against the host path's. The emulated twin is tests/cuda_training_session_test.cpp.
// Skips (visibly) where no device is found, fails in scripts/gpu-check.sh (GLINT_REQUIRE_GPU).
#include <gtest/gtest.h>

#include <cstdlib>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/cuda/cuda_backend.h"
#include "glint/backend/cuda/device_training_session.h"
#include "device_tolerances.h"
#include "raster_test_util.h"
#include "training_session_steps.h"

using namespace glint;

namespace {
bool skip_without_gpu() {
  if (cuda_device_present()) return false;
  if (std::getenv("GLINT_REQUIRE_GPU")) ADD_FAILURE() << "no CUDA device, and GLINT_REQUIRE_GPU is set";
  return true;
}
}  // namespace

TEST(CudaTrainingSessionDevice, OneStepMatchesTheCpuSession) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  test::Scene sc(400);
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  auto dev = cuda::make_device_training_session(sc.setup(), sc.initial());
  const test::StepOut a = test::run_step(*cpu, 3, 1, 1, false), b = test::run_step(*dev, 3, 1, 1, false);
  EXPECT_NEAR(b.loss, a.loss, 1e-5 * a.loss);
  const std::size_t margin = test::count_margin(cpu->size());
  EXPECT_LE(test::count_gap(std::int64_t(b.visible), std::int64_t(a.visible)), std::int64_t(margin));
  const SplatSet& sa = cpu->state();
  const SplatSet& sb = dev->state();
  const std::size_t slack = sa.size() / 100 + 1;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_TRUE(test::grads_close(kParamGroupNames[gi], sb.adam.groups()[gi].m, sa.adam.groups()[gi].m, 1e-3,
                                  slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
    EXPECT_TRUE(test::images_close(std::string("params ") + kParamGroupNames[gi], sb.param(g), sa.param(g), 1e-5,
                                   slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
  }
  EXPECT_LE(test::count_differing(sb.grad_count, sa.grad_count), margin);
}

TEST(CudaTrainingSessionDevice, TwoRunsGiveTheSameBits) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  test::Scene sc(2000);
  auto a = cuda::make_device_training_session(sc.setup(), sc.initial());
  auto b = cuda::make_device_training_session(sc.setup(), sc.initial());
  for (long step = 1; step <= 5; ++step) {
    const auto view = static_cast<std::size_t>(step) % sc.data.train.size();
    ASSERT_EQ(test::run_step(*a, view, step, 1, true).loss, test::run_step(*b, view, step, 1, true).loss);
  }
  const SplatSet& sa = a->state();
  const SplatSet& sb = b->state();
  for (int g = 0; g < kNumParamGroups; ++g) EXPECT_EQ(sa.param(g), sb.param(g)) << kParamGroupNames[static_cast<std::size_t>(g)];
  EXPECT_EQ(sa.grad_accum, sb.grad_accum);
}

// Refinement on the device: the counts of the host path (train/'s CPU code, refine_on_host)
// from the same state, no round trips, and a second run's bits.
TEST(CudaTrainingSessionDevice, RefinementCountsAreTheHostPathsAndRepeat) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  test::Scene sc(2000);
  SplatSet init = sc.initial();
  for (std::size_t i = 0; i < init.size(); i += 3) init.grad_accum[i] = 1.f, init.grad_count[i] = 1.f;
  for (std::size_t i = 0; i < init.size(); i += 5) init.model.opacity_logits[i] = -8.f;
  cuda::DeviceSessionOptions host;
  host.refine_on_host = true;
  auto ref = cuda::make_device_training_session(sc.setup(), init, host);
  auto a = cuda::make_device_training_session(sc.setup(), init);
  auto b = cuda::make_device_training_session(sc.setup(), init);
  DensifyOptions d;
  d.densify_from = 10;
  d.densify_every = 10;
  McmcOptions m;
  m.refine_from = 10;
  m.refine_every = 10;
  Rng r0(7), ra(7), rb(7);
  const DensifyReport dr = ref->densify(20, 2.0, d, r0), da = a->densify(20, 2.0, d, ra), db = b->densify(20, 2.0, d, rb);
  // clone and split decide by divisions and comparisons (--fmad=false): the CPU's; prune and
  // relocate test sigmoid(opacity), whose expf differs on a device (device_tolerances.h)
  const auto margin = static_cast<std::int64_t>(test::count_margin(init.size()));
  EXPECT_EQ(da.cloned, dr.cloned);
  EXPECT_EQ(da.split, dr.split);
  EXPECT_LE(test::count_gap(std::int64_t(da.pruned), std::int64_t(dr.pruned)), margin);
  EXPECT_LE(test::count_gap(std::int64_t(a->size()), std::int64_t(ref->size())), margin);
  const McmcReport mr = ref->mcmc_refine(30, m, r0), ma = a->mcmc_refine(30, m, ra), mb = b->mcmc_refine(30, m, rb);
  EXPECT_LE(test::count_gap(std::int64_t(ma.relocated), std::int64_t(mr.relocated)), margin);
  EXPECT_LE(test::count_gap(std::int64_t(ma.added), std::int64_t(mr.added)), margin);
  a->mcmc_noise(1e-4f, m, ra);
  b->mcmc_noise(1e-4f, m, rb);
  EXPECT_EQ(cuda::model_round_trips(*a), 0u);
  EXPECT_EQ(db.split, da.split);
  EXPECT_EQ(mb.added, ma.added);
  const SplatSet& sa = a->state();
  const SplatSet& sb = b->state();
  for (int g = 0; g < kNumParamGroups; ++g) EXPECT_EQ(sa.param(g), sb.param(g)) << kParamGroupNames[static_cast<std::size_t>(g)];
}

// The lightable preset's regularisers (normal consistency, distortion, flattening) on the
// device: one step against the CPU session, and a second device run giving the same bits.
TEST(CudaTrainingSessionDevice, GeometryStepMatchesTheCpuSessionAndRepeats) {
  if (skip_without_gpu()) GTEST_SKIP() << "no CUDA device on this machine";
  test::Scene sc(400);
  const TrainingSetup setup = sc.setup();
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
  auto dev = cuda::make_device_training_session(setup, sc.initial());
  auto again = cuda::make_device_training_session(setup, sc.initial());
  const test::GeometryWeights w;
  const test::GeometryStepOut a = test::run_geometry_step(*cpu, w, 3, 1), b = test::run_geometry_step(*dev, w, 3, 1);
  EXPECT_NEAR(b.photometric, a.photometric, 1e-5 * a.photometric);
  EXPECT_NEAR(b.normal, a.normal, 1e-4 * a.normal);
  EXPECT_NEAR(b.distortion, a.distortion, 1e-4 * a.distortion);
  EXPECT_EQ(test::run_geometry_step(*again, w, 3, 1).total, b.total);
  const SplatSet& sa = cpu->state();
  const SplatSet& sb = dev->state();
  const std::size_t slack = sa.size() / 100 + 1;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_TRUE(test::grads_close(kParamGroupNames[gi], sb.adam.groups()[gi].m, sa.adam.groups()[gi].m, 1e-3,
                                  slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
    EXPECT_EQ(again->state().param(g), sb.param(g)) << kParamGroupNames[gi];
  }
}
