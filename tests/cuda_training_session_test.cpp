// The CUDA backend's device training session (backend/cuda/device_training_session.h)
// run against the emulator: the same session code the device runs, on the host. One step
// against the CPU session (loss, gradients through Adam's first moments, statistics),
// selective Adam, MCMC's regulariser, the host round trips, the finiteness check, streamed
// and downscaled targets, determinism, a state round trip, and a short training run that
// must end far above the first render's PSNR. The scene (training_session_steps.h) is the
// bundled demo at 25x25 pixels with a few hundred splats, so that the emulated kernels run
// in seconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/cuda/device_training_session.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/io/image_ops.h"
#include "glint/train/init.h"
#include "glint/train/metrics.h"
#include "glint/train/trainer.h"
#include "model_fixture.h"
#include "raster_test_util.h"
#include "device_tolerances.h"
#include "emulated_cuda_trainer.h"
#include "training_session_steps.h"

using namespace glint;
using test::run_step;
using test::Scene;
using test::StepOut;
using test::expect_same_set;

TEST(CudaTrainingSession, OneStepMatchesTheCpuSession) {
  Scene sc(400);
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  auto emu = cuda::make_device_training_session(sc.setup(), sc.initial());
  ASSERT_EQ(emu->size(), cpu->size());
  const StepOut a = run_step(*cpu, 3, 1, 1, false), b = run_step(*emu, 3, 1, 1, false);
  EXPECT_NEAR(b.loss, a.loss, 1e-5 * a.loss);
  const std::size_t margin = test::count_margin(cpu->size());  // zero without contraction
  EXPECT_LE(test::count_gap(std::int64_t(b.visible), std::int64_t(a.visible)), std::int64_t(margin));
  EXPECT_GT(a.visible, cpu->size() / 4);
  EXPECT_EQ(b.adam, -1);
  const SplatSet& sa = cpu->state();
  const SplatSet& sb = emu->state();
  // Adam's first moment after one step is (1 - beta1) times the gradient: the step's
  // gradients, compared with the tolerances the emulated backward is held to.
  const std::size_t slack = sa.size() / 100 + 1;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_TRUE(test::grads_close(kParamGroupNames[gi], sb.adam.groups()[gi].m, sa.adam.groups()[gi].m, 1e-3,
                                  slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
    // Adam's first step moves every value by about its learning rate, either way: values
    // whose gradient is rounding noise may go either way on the two backends
    EXPECT_TRUE(test::images_close(std::string("params ") + kParamGroupNames[gi], sb.param(g), sa.param(g), 1e-5,
                                   slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
    EXPECT_EQ(sb.adam.groups()[gi].step, sa.adam.groups()[gi].step);
  }
  EXPECT_LE(test::count_differing(sb.grad_count, sa.grad_count), margin);
  EXPECT_LE(test::count_differing(sb.max_radii, sa.max_radii), margin);
  EXPECT_TRUE(test::grads_close("grad_accum", sb.grad_accum, sa.grad_accum, 1e-3, slack + margin));
  double gmax = 0;
  for (float v : sa.adam.groups()[kOpacity].m) gmax = std::max(gmax, std::fabs(double(v)));
  EXPECT_GT(gmax, 1e-6);  // the gradients reach the splats
  EXPECT_EQ(emu->first_non_finite_group(true), -1);
}

TEST(CudaTrainingSession, SelectiveAdamLeavesUnseenSplatsAsTheCpuDoes) {
  Scene sc(400);
  SplatSet init = sc.initial();
  for (std::size_t i = 0; i < init.size(); i += 7) init.model.means[3 * i] += 50.f;  // out of every view
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), init);
  auto emu = cuda::make_device_training_session(sc.setup(), init);
  const StepOut a = run_step(*cpu, 0, 1, 0, true), b = run_step(*emu, 0, 1, 0, true);
  EXPECT_LE(test::count_gap(std::int64_t(a.visible), std::int64_t(b.visible)),
            std::int64_t(test::count_margin(cpu->size())));
  ASSERT_LT(b.visible, emu->size());  // some splats are out of view, and must not move
  const SplatSet& sb = emu->state();
  std::size_t unseen = 0;
  for (std::size_t i = 0; i < sb.size(); ++i) {
    if (sb.grad_count[i] > 0) continue;  // what the device's own render drew
    ++unseen;
    for (int k = 0; k < 3; ++k) ASSERT_EQ(sb.model.means[3 * i + k], init.model.means[3 * i + k]) << "splat " << i;
    ASSERT_EQ(sb.adam.groups()[kMeans].m[3 * i], 0.f);
  }
  EXPECT_GT(unseen, 0u);
}

TEST(CudaTrainingSession, TwoRunsGiveTheSameBits) {
  Scene sc(300);
  auto a = cuda::make_device_training_session(sc.setup(), sc.initial());
  auto b = cuda::make_device_training_session(sc.setup(), sc.initial());
  for (long step = 1; step <= 4; ++step) {
    const StepOut x = run_step(*a, static_cast<std::size_t>(step) % sc.data.train.size(), step, 1, true);
    const StepOut y = run_step(*b, static_cast<std::size_t>(step) % sc.data.train.size(), step, 1, true);
    ASSERT_EQ(x.loss, y.loss) << "step " << step;
  }
  expect_same_set(a->state(), b->state());
}

TEST(CudaTrainingSession, StateThenLoadContinuesIdentically) {
  Scene sc(300);
  auto a = cuda::make_device_training_session(sc.setup(), sc.initial());
  for (long step = 1; step <= 3; ++step) run_step(*a, static_cast<std::size_t>(step), step, 1, false);
  const SplatSet saved = a->state();  // a copy, as a checkpoint holds it
  auto b = cuda::make_device_training_session(sc.setup(), sc.initial());
  b->load(saved);
  b->set_sh_degree(saved.model.sh_degree);
  // the state is portable: the CPU session continues from it too (to the tolerances)
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  cpu->load(saved);
  for (long step = 4; step <= 5; ++step) {
    const StepOut x = run_step(*a, static_cast<std::size_t>(step), step, 1, false);
    const StepOut y = run_step(*b, static_cast<std::size_t>(step), step, 1, false);
    const StepOut z = run_step(*cpu, static_cast<std::size_t>(step), step, 1, false);
    ASSERT_EQ(x.loss, y.loss) << "step " << step;
    EXPECT_NEAR(z.loss, x.loss, 1e-4 * x.loss) << "step " << step;
  }
  expect_same_set(a->state(), b->state());
  EXPECT_TRUE(test::images_close("means after the CPU's steps", cpu->state().model.means, a->state().model.means, 1e-4,
                                 a->size() / 50 + 1));
}

// A few hundred steps of the Trainer on the emulated session, densification (on the device)
// included: the model ends far above where it started.
TEST(CudaTrainingSession, TrainsFarAboveTheFirstRender) {
  Scene sc(200);
  test::EmulatedCudaBackend backend;
  TrainOptions o;
  o.steps = 200;
  o.seed = 3;
  o.densify.densify_from = 60;
  o.densify.densify_every = 60;
  o.densify.densify_until = 150;
  o.densify.grad_threshold = 1e-5f;
  Trainer t(sc.data, o, backend, sc.images);
  const double first = test::mean_train_psnr(sc, t.model());
  std::size_t splats_before = t.model().size();
  while (t.current_step() < o.steps) t.step();
  const double last = test::mean_train_psnr(sc, t.model());
  EXPECT_GT(last, first + 5.0) << "first " << first << " dB, last " << last << " dB";
  std::printf("emulated training: %.2f dB -> %.2f dB, %zu -> %zu splats\n", first, last, splats_before, t.model().size());
  EXPECT_NE(t.model().size(), splats_before);  // densification ran
  EXPECT_EQ(cuda::model_round_trips(*backend.session), 0u);  // on the device
}

// The Trainer's ADC (clone, split, prune, opacity resets) and MCMC (noise every step,
// relocation and growth) runs, coarse-to-fine included, never take the model to the host.
TEST(CudaTrainingSession, DeviceRefinementMakesNoRoundTrips) {
  Scene sc(150);
  for (Strategy strategy : {Strategy::kAdc, Strategy::kMcmc}) {
    test::EmulatedCudaBackend backend;
    TrainOptions o;
    o.steps = 40;
    o.seed = 5;
    o.strategy = strategy;
    o.coarse_to_fine = 8;
    o.densify.densify_from = 10;
    o.densify.densify_every = 10;
    o.densify.densify_until = 35;
    o.densify.opacity_reset_every = 20;
    o.densify.grad_threshold = 1e-5f;
    o.mcmc.refine_from = 10;
    o.mcmc.refine_every = 10;
    o.mcmc.min_opacity = 0.2f;  // some splats are dead
    Trainer t(sc.data, o, backend, sc.images);
    const std::size_t before = t.model().size();
    while (t.current_step() < o.steps) t.step();
    EXPECT_NE(t.model().size(), before) << (strategy == Strategy::kAdc ? "adc" : "mcmc");
    EXPECT_EQ(cuda::model_round_trips(*backend.session), 0u) << (strategy == Strategy::kAdc ? "adc" : "mcmc");
  }
}

// The same steps through the session interface, twice: the same bits, device refinement and
// all.
TEST(CudaTrainingSession, DeviceRefinementRunsGiveTheSameBits) {
  Scene sc(200);
  SplatSet init = sc.initial();
  for (std::size_t i = 0; i < init.size(); i += 4) init.model.opacity_logits[i] = -8.f;  // dead for MCMC
  SplatSet out[2];
  for (SplatSet& result : out) {
    auto s = cuda::make_device_training_session(sc.setup(), init);
    DensifyOptions d;
    d.densify_from = 1;
    d.densify_every = 2;
    d.grad_threshold = 1e-6f;
    McmcOptions m;
    m.refine_from = 1;
    m.refine_every = 3;
    Rng rng(2);
    for (long step = 1; step <= 6; ++step) {
      run_step(*s, static_cast<std::size_t>(step), step, 1, false);
      s->densify(step, 2.0, d, rng);
      s->mcmc_noise(1e-4f, m, rng);
      s->mcmc_refine(step, m, rng);
    }
    result = s->state();
    EXPECT_EQ(cuda::model_round_trips(*s), 0u);
    EXPECT_GT(result.size(), init.size());
  }
  expect_same_set(out[0], out[1]);
}

// MCMC's regulariser on the device, its value and its gradients (added to the render's),
// against the CPU session's.
TEST(CudaTrainingSession, McmcRegulariserMatchesTheCpuSession) {
  Scene sc(300);
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  auto emu = cuda::make_device_training_session(sc.setup(), sc.initial());
  McmcOptions o;
  o.opacity_reg = 0.3f;
  o.scale_reg = 0.2f;
  double reg[2] = {0, 0};
  TrainingSession* sessions[2] = {cpu.get(), emu.get()};
  for (int k = 0; k < 2; ++k) {
    TrainingSession& s = *sessions[k];
    s.set_target(2, 1, {0.f, 0.f, 0.f});
    RenderSettings rs;
    s.render(rs);
    s.photometric_loss();
    s.backward();
    s.visibility();
    reg[k] = s.mcmc_regularizer(o);
    s.adam({1e-3f, 5e-3f, 1e-3f, 5e-2f, 2.5e-3f, 1.25e-4f}, false, 0);
  }
  EXPECT_NEAR(reg[1], reg[0], 1e-6 * reg[0]);
  EXPECT_GT(reg[0], 0.0);
  const SplatSet& sa = cpu->state();
  const SplatSet& sb = emu->state();
  const std::size_t slack = sa.size() / 100 + 1;
  EXPECT_TRUE(test::grads_close("opacity", sb.adam.groups()[kOpacity].m, sa.adam.groups()[kOpacity].m, 1e-3, slack));
  EXPECT_TRUE(
      test::grads_close("log_scales", sb.adam.groups()[kLogScales].m, sa.adam.groups()[kLogScales].m, 1e-3, 3 * slack));
}

// With refine_on_host, the host round trips (densification, MCMC's noise and refinement)
// run train/'s CPU code on the downloaded arrays: from the same state and the same generator they give the CPU
// session's bits, and at steps their schedules skip they change nothing.
TEST(CudaTrainingSession, HostRoundTripsGiveTheCpuSessionsBits) {
  Scene sc(300);
  SplatSet init = sc.initial();
  for (std::size_t i = 0; i < init.size(); i += 3) init.grad_accum[i] = 1.f, init.grad_count[i] = 1.f;  // to densify
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), init);
  cuda::DeviceSessionOptions host;
  host.refine_on_host = true;
  auto emu = cuda::make_device_training_session(sc.setup(), init, host);
  DensifyOptions d;
  d.densify_from = 10;
  d.densify_every = 10;
  McmcOptions m;
  m.refine_from = 10;
  m.refine_every = 10;
  Rng ra(7), rb(7);
  const DensifyReport skip = emu->densify(15, 2.0, d, rb);
  EXPECT_FALSE(skip.densified || skip.opacity_reset);
  ASSERT_EQ(cpu->densify(15, 2.0, d, ra).densified, false);
  const DensifyReport da = cpu->densify(20, 2.0, d, ra), db = emu->densify(20, 2.0, d, rb);
  EXPECT_TRUE(db.densified);
  EXPECT_EQ(db.cloned + db.split + db.pruned, da.cloned + da.split + da.pruned);
  expect_same_set(emu->state(), cpu->state());
  SplatSet mid = cpu->state();
  for (std::size_t i = 0; i < mid.size(); i += 5) mid.model.opacity_logits[i] = -8.f;  // dead for MCMC
  cpu->load(mid);
  emu->load(mid);
  cpu->mcmc_noise(1e-4f, m, ra);
  emu->mcmc_noise(1e-4f, m, rb);
  const McmcReport ma = cpu->mcmc_refine(30, m, ra), mb = emu->mcmc_refine(30, m, rb);
  EXPECT_TRUE(mb.refined);
  EXPECT_EQ(mb.relocated, ma.relocated);
  EXPECT_GT(mb.relocated, 0u);
  EXPECT_EQ(mb.added, ma.added);
  expect_same_set(emu->state(), cpu->state());
  EXPECT_EQ(emu->size(), cpu->size());
  EXPECT_EQ(cuda::model_round_trips(*emu), 3u);
}

TEST(CudaTrainingSession, FindsTheFirstNonFiniteGroup) {
  Scene sc(100);
  SplatSet init = sc.initial();
  init.model.sh_dc[7] = std::numeric_limits<float>::infinity();
  init.model.sh_rest[40] = std::numeric_limits<float>::quiet_NaN();
  auto emu = cuda::make_device_training_session(sc.setup(), init);
  EXPECT_EQ(emu->first_non_finite_group(false), kShDc);
  init.model.sh_dc[7] = 0.f;
  emu->load(init);
  EXPECT_EQ(emu->first_non_finite_group(true), kShRest);
  init.model.sh_rest[40] = 0.f;
  emu->load(init);
  EXPECT_EQ(emu->first_non_finite_group(false), -1);
}

// Views past the device image budget are uploaded by the step that needs them, and
// coarse-to-fine targets are downscaled on the device (or, streamed, on the host): the same
// target either way, and the downscaled one the CPU session's.
TEST(CudaTrainingSession, StreamedAndDownscaledTargetsMatch) {
  Scene sc(200);
  TrainingSetup kept = sc.setup(), streamed = sc.setup();
  streamed.device_images_mb = 0;
  auto a = cuda::make_device_training_session(kept, sc.initial());
  auto b = cuda::make_device_training_session(streamed, sc.initial());
  EXPECT_EQ(run_step(*a, 4, 1, 0, false).loss, run_step(*b, 4, 1, 0, false).loss);
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  auto c = cuda::make_device_training_session(kept, sc.initial());
  double loss[2] = {0, 0};
  TrainingSession* sessions[2] = {cpu.get(), c.get()};
  for (int k = 0; k < 2; ++k) {
    const Camera cam = sessions[k]->set_target(1, 2, {1.f, 1.f, 1.f});
    EXPECT_EQ(cam.width, sc.data.train[1].camera.width / 2);
    sessions[k]->render(RenderSettings{});
    loss[k] = sessions[k]->photometric_loss();
  }
  EXPECT_NEAR(loss[1], loss[0], 1e-5 * loss[0]);
  // downscaled on the host (streamed) and on the device (kept): the same target's bits
  auto d = cuda::make_device_training_session(streamed, sc.initial());
  d->set_target(1, 2, {1.f, 1.f, 1.f});
  d->render(RenderSettings{});
  EXPECT_EQ(d->photometric_loss(), loss[1]);
}
