// Training through the Vulkan backend on both CPU drivers, under the validation layer. Its
// training session is the device session (backend/vulkan/device_training_session.h): one
// step against the CPU session (loss, gradients through Adam's first moments, parameters,
// statistics; selective Adam; a step with the geometry regularisers), the Trainer's ADC
// and MCMC runs climbing far above the first render, an MCMC run resumed from a checkpoint
// through a refinement giving the uninterrupted run's bits, a checkpoint's state
// continuing bit-identically on the same device, a checkpoint moved between the CPU and
// Vulkan backends continuing there to the tolerances, and MCMC's noise and refinement and
// ADC's refinement on the device against the CPU's. The scene is the demo at 25x25 with a
// few hundred splats (tests/training_session_steps.h).
#include <gtest/gtest.h>

#include <cstdio>

#include "emulated_cuda_trainer.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/vulkan/device_training_session.h"
#include "glint/train/checkpoint.h"
#include "glint/train/mcmc.h"
#include "glint/train/trainer.h"
#include "raster_test_util.h"
#include "training_session_steps.h"
#include "vulkan_test_support.h"

using namespace glint;
using test::run_step;
using test::Scene;
using test::StepOut;

namespace {
class VulkanTraining : public test::VulkanTest {};
}  // namespace

TEST_P(VulkanTraining, OneStepMatchesTheCpuSession) {
  Scene sc(400);
  auto cpu_backend = make_cpu_backend(1);
  auto vk_backend = test::vulkan_backend_on(driver());
  auto cpu = vk_backend->start_training(sc.setup(), sc.initial());
  auto ref = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  const StepOut a = run_step(*ref, 3, 1, 1, false), b = run_step(*cpu, 3, 1, 1, false);
  EXPECT_NEAR(b.loss, a.loss, 1e-5 * a.loss);
  EXPECT_EQ(b.visible, a.visible);
  EXPECT_GT(a.visible, ref->size() / 4);
  EXPECT_EQ(b.adam, -1);
  const SplatSet& sa = ref->state();
  const SplatSet& sb = cpu->state();
  const std::size_t slack = sa.size() / 100 + 1;
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_TRUE(test::grads_close(kParamGroupNames[gi], sb.adam.groups()[gi].m, sa.adam.groups()[gi].m, 1e-3,
                                  slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
  }
  EXPECT_EQ(sb.grad_count, sa.grad_count);
  EXPECT_EQ(sb.max_radii, sa.max_radii);
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    // Adam's first step moves every value by about its learning rate, either way: values
    // whose gradient is rounding noise may go either way on the two backends
    EXPECT_TRUE(test::images_close(std::string("params ") + kParamGroupNames[gi], sb.param(g), sa.param(g), 1e-5,
                                   slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
    EXPECT_EQ(sb.adam.groups()[gi].step, sa.adam.groups()[gi].step);
  }
  EXPECT_TRUE(test::grads_close("grad_accum", sb.grad_accum, sa.grad_accum, 1e-3, slack));
  EXPECT_TRUE(vk::is_device_training_session(*cpu));  // the step ran in device memory
  EXPECT_EQ(cpu->first_non_finite_group(true), -1);

  // selective Adam on a view where some splats are out of sight: they must not move
  SplatSet init = sc.initial();
  for (std::size_t i = 0; i < init.size(); i += 7) init.model.means[3 * i] += 50.f;
  auto sel = vk_backend->start_training(sc.setup(), init);
  const StepOut c = run_step(*sel, 0, 1, 0, true);
  ASSERT_LT(c.visible, sel->size());
  const SplatSet& sc_state = sel->state();
  std::size_t unseen = 0;
  for (std::size_t i = 0; i < sc_state.size(); ++i) {
    if (sc_state.grad_count[i] > 0) continue;
    ++unseen;
    for (int k = 0; k < 3; ++k) ASSERT_EQ(sc_state.model.means[3 * i + k], init.model.means[3 * i + k]) << i;
  }
  EXPECT_GT(unseen, 0u);

  // a step with every geometry regulariser (vulkan_geometry_loss_test.cpp holds them closer)
  auto geo_ref = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  auto geo = vk_backend->start_training(sc.setup(), sc.initial());
  const test::GeometryWeights w;
  const test::GeometryStepOut ga = test::run_geometry_step(*geo_ref, w, 2, 1);
  const test::GeometryStepOut gb = test::run_geometry_step(*geo, w, 2, 1);
  EXPECT_NEAR(gb.photometric, ga.photometric, 1e-5 * ga.photometric);
  EXPECT_NEAR(gb.normal, ga.normal, 1e-4 * std::max(ga.normal, 1e-6));
  EXPECT_NEAR(gb.distortion, ga.distortion, 1e-4 * std::max(ga.distortion, 1e-6));
  EXPECT_NEAR(gb.total, ga.total, 1e-5 * ga.total);
  const SplatSet& ta = geo_ref->state();
  const SplatSet& tb = geo->state();
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    EXPECT_TRUE(test::grads_close(std::string("geometry ") + kParamGroupNames[gi], tb.adam.groups()[gi].m,
                                  ta.adam.groups()[gi].m, 1e-3,
                                  slack * static_cast<std::size_t>(kParamGroupWidths[gi])));
  }
}

TEST_P(VulkanTraining, AdcAndMcmcTrainFarAboveTheFirstRenderAndRepeat) {
  for (Strategy strategy : {Strategy::kAdc, Strategy::kMcmc}) {
    SCOPED_TRACE(strategy == Strategy::kAdc ? "adc" : "mcmc");
    Scene sc(200);
    // (short: SwiftShader runs each step's two dozen dispatches slowly under the validation layer)
    TrainOptions o;
    o.steps = strategy == Strategy::kAdc ? 100 : 60;
    o.seed = 3;
    o.strategy = strategy;
    o.densify.densify_from = 40;
    o.densify.densify_every = 40;
    o.densify.densify_until = 90;
    o.densify.grad_threshold = 1e-5f;
    o.mcmc.refine_from = 20;
    o.mcmc.refine_every = 20;
    o.mcmc.refine_until = 50;
    o.mcmc.max_splats = 300;
    auto be = test::vulkan_backend_on(driver());
    Trainer t(sc.data, o, *be, sc.images);
    const double first = test::mean_train_psnr(sc, t.model());
    const std::size_t before = t.model().size();
    while (t.current_step() < o.steps) t.step();
    const double last = test::mean_train_psnr(sc, t.model());
    std::printf("Vulkan (%s) training: %.2f dB -> %.2f dB, %zu -> %zu splats\n", driver().c_str(), first, last, before,
                t.model().size());
    EXPECT_GT(last, first + (strategy == Strategy::kAdc ? 4.0 : 3.0));
    EXPECT_NE(t.model().size(), before);  // the set changed
    if (strategy == Strategy::kMcmc) {
      // a second run on the same device, saved at step 30 and resumed from the checkpoint's
      // bytes, through the refinement at step 40: the same bits
      Trainer u(sc.data, o, *be, sc.images);
      while (u.current_step() < 30) u.step();
      TrainCheckpoint ck = parse_checkpoint(serialize_checkpoint(u.checkpoint()), "mid-run checkpoint");
      Trainer w(sc.data, o, *be, sc.images);
      w.restore(std::move(ck), "mid-run checkpoint");
      while (w.current_step() < o.steps) w.step();
      test::expect_same_model(t.model(), w.model());
    }
  }
}

// MCMC's position noise on the device, with the CPU's random numbers: the same draw from the
// trainer's generator, the means moved as mcmc_add_noise moves them (to the rounding of the
// driver's exp), nothing else touched.
TEST_P(VulkanTraining, McmcNoiseRunsOnTheDeviceWithTheCpuNumbers) {
  Scene sc(300);
  auto be = test::vulkan_backend_on(driver());
  const SplatSet init = sc.initial();
  auto dev = be->start_training(sc.setup(), init);
  SplatSet ref = init;
  McmcOptions o;
  Rng a(11), b(11);
  dev->mcmc_noise(1e-4f, o, a);
  mcmc_add_noise(ref, 1e-4f, o, b);
  EXPECT_EQ(a.state(), b.state());
  const SplatSet& got = dev->state();
  std::vector<double> moved(init.model.means.size()), ref_moved(moved.size());
  std::size_t changed = 0;
  for (std::size_t i = 0; i < moved.size(); ++i) {
    moved[i] = double(got.model.means[i]) - init.model.means[i];
    ref_moved[i] = double(ref.model.means[i]) - init.model.means[i];
    changed += ref_moved[i] != 0;
  }
  EXPECT_GT(changed, moved.size() / 2);
  EXPECT_TRUE(test::grads_close("noise", moved, ref_moved, 1e-4));
  EXPECT_EQ(got.model.log_scales, init.model.log_scales);
  EXPECT_EQ(got.model.quats, init.model.quats);
  EXPECT_EQ(got.model.opacity_logits, init.model.opacity_logits);
}

// MCMC's refinement on the device (the decisions from the opacities and scales on the host,
// the row edits on the device): a relocation of the dead and a growth give mcmc_step's set
// bit for bit, with the same draws; the grown set then
// trains as the CPU session trains it.
TEST_P(VulkanTraining, McmcRefinementEditsTheDeviceArraysAsTheCpuDoes) {
  Scene sc(300);
  SplatSet init = sc.initial();
  for (std::size_t i = 0; i < init.size(); i += 5) init.model.opacity_logits[i] = -8.f;  // dead
  float x = 0.f;
  for (AdamMoments& g : init.adam.groups()) {
    for (float& v : g.m) v = (x += 1e-3f);
    for (float& v : g.v) v = (x += 1e-3f);
  }
  for (std::size_t i = 0; i < init.size(); ++i) init.grad_accum[i] = init.grad_count[i] = init.max_radii[i] = float(i);
  McmcOptions o;
  o.refine_from = 0;
  o.refine_every = 10;
  o.max_splats = init.size() + 40;
  o.growth = 0.2;
  auto be = test::vulkan_backend_on(driver());
  auto dev = be->start_training(sc.setup(), init);
  SplatSet ref = init;
  Rng a(5), b(5);
  const McmcReport rd = dev->mcmc_refine(20, o, a);
  const McmcReport rc = mcmc_step(ref, 20, o, b);
  EXPECT_EQ(a.state(), b.state());
  EXPECT_TRUE(rd.refined);
  EXPECT_EQ(rd.relocated, rc.relocated);
  EXPECT_EQ(rd.added, rc.added);
  EXPECT_GT(rc.relocated, init.size() / 6);
  EXPECT_EQ(rc.added, 40u);
  EXPECT_EQ(dev->size(), ref.size());
  test::expect_same_set(dev->state(), ref);
  EXPECT_FALSE(dev->mcmc_refine(21, o, a).refined);
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), ref);
  const StepOut p = run_step(*dev, 2, 21, 1, false), q = run_step(*cpu, 2, 21, 1, false);
  EXPECT_NEAR(p.loss, q.loss, 1e-4 * q.loss);
  EXPECT_EQ(p.adam, -1);
}

// ADC's refinement on the device (densify_step on a light copy on the host, the SH and the
// moments gathered on the device): clones, splits and prunes, then a prune with an opacity
// reset, give densify_step's set bit for bit, with the same draws.
TEST_P(VulkanTraining, AdcRefinementRebuildsTheDeviceArraysAsTheCpuDoes) {
  Scene sc(300);
  SplatSet init = sc.initial();
  float x = 0.f;
  for (AdamMoments& g : init.adam.groups()) {
    for (float& v : g.m) v = (x += 1e-3f);
    for (float& v : g.v) v = (x += 1e-3f);
  }
  for (std::size_t i = 0; i < init.size(); ++i) {
    init.grad_count[i] = 1.f;
    init.grad_accum[i] = i % 3 == 0 ? 1e-3f : 0.f;  // densified: cloned when small, split when large
    if (i % 3 == 0)
      for (int a = 0; a < 3; ++a) init.model.log_scales[3 * i + a] = i % 2 == 0 ? -6.f : -3.f;
    if (i % 7 == 1) init.model.opacity_logits[i] = -8.f;  // pruned
    init.max_radii[i] = float(i % 11);
  }
  DensifyOptions o;
  o.densify_from = 0;
  o.densify_every = 10;
  o.opacity_reset_every = 30;
  auto be = test::vulkan_backend_on(driver());
  auto dev = be->start_training(sc.setup(), init);
  SplatSet ref = init;
  Rng a(6), b(6);
  for (long step : {20L, 30L}) {
    SCOPED_TRACE(step);
    const DensifyReport rd = dev->densify(step, 1.0, o, a);
    const DensifyReport rc = densify_step(ref, step, 1.0, o, b);
    EXPECT_EQ(a.state(), b.state());
    EXPECT_TRUE(rd.densified);
    EXPECT_EQ(rd.cloned, rc.cloned);
    EXPECT_EQ(rd.split, rc.split);
    EXPECT_EQ(rd.pruned, rc.pruned);
    EXPECT_EQ(rd.opacity_reset, rc.opacity_reset);
    if (step == 20) {
      EXPECT_GT(rc.cloned, 10u);
      EXPECT_GT(rc.split, 10u);
      EXPECT_GT(rc.pruned, 10u);
    }
    EXPECT_EQ(dev->size(), ref.size());
    test::expect_same_set(dev->state(), ref);
  }
  EXPECT_TRUE(ref.adam.groups()[kOpacity].m == std::vector<float>(ref.size(), 0.f));  // the reset's
  EXPECT_TRUE(dev->densify(31, 1.0, o, a).cloned == 0 && !dev->densify(31, 1.0, o, a).densified);
}

TEST_P(VulkanTraining, CheckpointsContinueBitIdenticallyAndMoveBetweenBackends) {
  Scene sc(300);
  auto be = test::vulkan_backend_on(driver());
  auto a = be->start_training(sc.setup(), sc.initial());
  for (long step = 1; step <= 3; ++step) run_step(*a, static_cast<std::size_t>(step), step, 1, false);
  // through a checkpoint's bytes, as glint train --resume reads them
  TrainCheckpoint ck;
  ck.step = 3;
  ck.splats = a->state();
  const TrainCheckpoint saved = parse_checkpoint(serialize_checkpoint(ck), "test checkpoint");
  auto b = be->start_training(sc.setup(), sc.initial());
  b->load(saved.splats);
  b->set_sh_degree(saved.splats.model.sh_degree);
  auto cpu_backend = make_cpu_backend(1);
  auto cpu = cpu::make_cpu_training_session(*cpu_backend, sc.setup(), sc.initial());
  cpu->load(saved.splats);
  for (long step = 4; step <= 5; ++step) {
    const StepOut x = run_step(*a, static_cast<std::size_t>(step), step, 1, false);
    const StepOut y = run_step(*b, static_cast<std::size_t>(step), step, 1, false);
    const StepOut z = run_step(*cpu, static_cast<std::size_t>(step), step, 1, false);
    ASSERT_EQ(x.loss, y.loss) << "step " << step;
    EXPECT_NEAR(z.loss, x.loss, 1e-4 * x.loss) << "step " << step;
  }
  test::expect_same_set(a->state(), b->state());
  EXPECT_TRUE(test::images_close("means after the CPU's steps", cpu->state().model.means, a->state().model.means, 1e-4,
                                 a->size() / 50 + 1));
  // and the other way: a CPU checkpoint continued on the device
  TrainCheckpoint from_cpu;
  from_cpu.splats = cpu->state();
  auto c = be->start_training(sc.setup(), sc.initial());
  c->load(parse_checkpoint(serialize_checkpoint(from_cpu), "cpu checkpoint").splats);
  const StepOut p = run_step(*c, 6, 6, 1, false), q = run_step(*cpu, 6, 6, 1, false);
  EXPECT_NEAR(p.loss, q.loss, 1e-4 * q.loss);
}

GLINT_VULKAN_DRIVERS(VulkanTraining);
