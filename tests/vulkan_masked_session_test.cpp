// Masks through a whole training step on the Vulkan device session, on both CPU drivers
// under the validation layer: the masked pixels change nothing bit for bit (the CPU and
// CUDA sessions' test, mask_session_steps.h), and the masked step matches the CPU session's
// within the unmasked step's tolerances (vulkan_training_test.cpp) for a target whose view
// and mask are kept on the device, one downscaled on the host (coarse-to-fine) and one
// streamed with its view.
#include <gtest/gtest.h>

#include <memory>

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
  std::shared_ptr<Backend> backend = vulkan_backend_on(driver());
  const StartSession start = [backend](const TrainingSetup& setup, SplatSet initial) {
    return backend->start_training(setup, std::move(initial));
  };
  expect_masked_step_matches_the_cpu(start, 1, 4096, files.mask);
  expect_masked_step_matches_the_cpu(start, 2, 4096, files.mask);
  expect_masked_step_matches_the_cpu(start, 1, 0, files.mask);
}

GLINT_VULKAN_DRIVERS(VulkanMaskedTraining);
