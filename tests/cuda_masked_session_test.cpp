// Masks through a whole training step on the CUDA device session (emulated; in the
// contracted suite too, tests/contracted): the masked pixels change nothing bit for bit,
// and the masked step matches the CPU session's within the unmasked step's tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <utility>

#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/cuda/device_training_session.h"
#include "mask_session_steps.h"

using namespace glint;
using namespace glint::test;

TEST(MaskedTraining, MaskedPixelsChangeNothingOnTheEmulatedCudaSession) {
  expect_mask_hides_the_scribble(
      [](Scene& sc) { return cuda::make_device_training_session(sc.setup(), sc.initial()); }, false);
}

// The device session's masked step against the CPU session's: the loss and the gradients
// within the tolerances the unmasked step is held to (cuda_training_session_test.cpp),
// for a coarse-to-fine target (the mask downscaled on the device) and a streamed full-size
// one (the mask uploaded with its view).
TEST(MaskedTraining, DeviceSessionMatchesTheCpuSession) {
  Scene probe(400);
  MaskFiles files(probe.data.train[kView].source.path);
  auto backend = make_cpu_backend(1);
  for (const auto& [factor, images_mb] : {std::pair<int, std::size_t>{2, 4096}, std::pair<int, std::size_t>{1, 0}}) {
    {
      SCOPED_TRACE(testing::Message() << "factor " << factor << ", device images " << images_mb << " MB");
      Scene sc(400);
      sc.data.train[kView].source.mask_path = files.mask;
      TrainingSetup setup = sc.setup();
      setup.device_images_mb = images_mb;
      auto cpu = cpu::make_cpu_training_session(*backend, setup, sc.initial());
      auto dev = cuda::make_device_training_session(setup, sc.initial());
      const std::array<float, 3> bg = {0.1f, 0.2f, 0.3f};
      double losses[2];
      TrainingSession* sessions[2] = {cpu.get(), dev.get()};
      for (int k = 0; k < 2; ++k) {
        TrainingSession& s = *sessions[k];
        s.set_target(kView, factor, bg);
        RenderSettings rs;
        for (int c = 0; c < 3; ++c) rs.background[c] = bg[static_cast<std::size_t>(c)];
        rs.sh_degree = 1;
        s.set_sh_degree(1);
        s.render(rs);
        losses[k] = s.photometric_loss();
        s.backward();
        s.visibility();
        s.adam({1e-3f, 5e-3f, 1e-3f, 5e-2f, 2.5e-3f, 1.25e-4f}, false, 1);
      }
      EXPECT_NEAR(losses[1], losses[0], 1e-5 * losses[0]);
      const std::vector<float>& ma = cpu->state().adam.groups()[kOpacity].m;
      const std::vector<float>& mb = dev->state().adam.groups()[kOpacity].m;
      double scale = 0, worst = 0;
      for (std::size_t i = 0; i < ma.size(); ++i) {
        scale = std::max(scale, std::fabs(double(ma[i])));
        worst = std::max(worst, std::fabs(double(mb[i]) - ma[i]));
      }
      EXPECT_GT(scale, 0.0);
      EXPECT_LT(worst, 1e-3 * scale);
    }
  }
}
