// Masks through a whole training step on the Vulkan device session, on both CPU drivers
// under the validation layer: the masked pixels change nothing bit for bit (the CPU and
// CUDA sessions' test, mask_session_steps.h), and the masked step matches the CPU session's
// within the unmasked step's tolerances (vulkan_training_test.cpp) for a target whose view
// and mask are kept on the device, one downscaled on the host (coarse-to-fine) and one
// streamed with its view.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <tuple>

#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/vulkan/device_training_session.h"
#include "mask_session_steps.h"
#include "vulkan_test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
class VulkanMaskedTraining : public VulkanTest {};
}  // namespace

TEST_P(VulkanMaskedTraining, MaskedPixelsChangeNothing) {
  std::shared_ptr<Backend> backend = vulkan_backend_on(driver());
  expect_mask_hides_the_scribble(
      [backend](Scene& sc) {
        auto s = backend->start_training(sc.setup(), sc.initial());
        EXPECT_TRUE(vk::is_device_training_session(*s));
        return s;
      },
      driver() == "lavapipe");  // the control steps without the mask once: they check the test, not the driver
}

TEST_P(VulkanMaskedTraining, MatchesTheCpuSession) {
  Scene probe(400);
  MaskFiles files(probe.data.train[kView].source.path);
  auto cpu_backend = make_cpu_backend(1);
  auto vk_backend = vulkan_backend_on(driver());
  for (const auto& [factor, images_mb] : {std::tuple<int, std::size_t>{1, 4096}, std::tuple<int, std::size_t>{2, 4096},
                                          std::tuple<int, std::size_t>{1, 0}}) {
    SCOPED_TRACE(testing::Message() << "factor " << factor << ", device images " << images_mb << " MB");
    Scene sc(400);
    sc.data.train[kView].source.mask_path = files.mask;
    TrainingSetup setup = sc.setup();
    setup.device_images_mb = images_mb;
    auto cpu = cpu::make_cpu_training_session(*cpu_backend, setup, sc.initial());
    auto dev = vk_backend->start_training(setup, sc.initial());
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

GLINT_VULKAN_DRIVERS(VulkanMaskedTraining);
