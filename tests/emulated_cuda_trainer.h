#pragma once
// What the emulated device-session tests share: a backend whose training sessions are the
// CUDA device session run against the emulator (renders outside training go to the CPU
// backend), bit-for-bit comparison of two sessions' states, and the mean PSNR of a model
// over a test scene's training views.
#include <gtest/gtest.h>

#include <memory>

#include "glint/backend/backend.h"
#include "glint/backend/cuda/device_training_session.h"
#include "glint/io/image_ops.h"
#include "glint/train/metrics.h"
#include "model_fixture.h"
#include "training_session_steps.h"

namespace glint::test {

class EmulatedCudaBackend final : public Backend {
 public:
  const char* name() const override { return "cuda-emulated"; }
  void forward_into(const GaussianModel& m, const Camera& c, const RenderSettings& s, RenderOutput& out) override {
    cpu_->forward_into(m, c, s, out);
  }
  void backward(const GaussianModel& m, const Camera& c, const RenderSettings& s, const RenderOutput& out,
                const RenderGradIn& gin, ModelGrad& grad) override {
    cpu_->backward(m, c, s, out, gin, grad);
  }
  std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) override {
    auto s = cuda::make_device_training_session(setup, std::move(initial));
    session = s.get();
    return s;
  }
  TrainingSession* session = nullptr;  // the last session started (the Trainer owns it)

 private:
  std::unique_ptr<Backend> cpu_ = make_cpu_backend(1);
};

// The same parameters, moments and statistics, bit for bit.
inline void expect_same_set(const SplatSet& a, const SplatSet& b) {
  expect_same_model(a.model, b.model);
  EXPECT_TRUE(a.adam == b.adam);
  EXPECT_EQ(a.grad_accum, b.grad_accum);
  EXPECT_EQ(a.grad_count, b.grad_count);
  EXPECT_EQ(a.max_radii, b.max_radii);
}

// Mean PSNR of `m` over the training views (over the dataset's background), on the CPU.
inline double mean_train_psnr(Scene& sc, const GaussianModel& m) {
  auto cpu = make_cpu_backend(1);
  RenderSettings rs;
  for (int c = 0; c < 3; ++c) rs.background[c] = sc.data.background[static_cast<std::size_t>(c)];
  rs.for_backward = false;
  double sum = 0;
  for (std::size_t v = 0; v < sc.data.train.size(); ++v) {
    const RenderOutput out = cpu->forward(m, sc.data.train[v].camera, rs);
    ImageF target;
    composite_float_into(*sc.images.get(v), sc.data.background, target);
    sum += psnr(out.rgb, target);
  }
  return sum / static_cast<double>(sc.data.train.size());
}

}  // namespace glint::test
