// The densification statistic of a cropped view on the Vulkan device session, on both CPU
// drivers under the validation layer, is the whole view's for the same pixels, as on the
// CPU session (crop_densify_steps.h).
#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "crop_densify_steps.h"
#include "glint/backend/vulkan/device_training_session.h"
#include "vulkan_test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
class VulkanDensifyCrop : public VulkanTest {};
}  // namespace

TEST_P(VulkanDensifyCrop, CropGivesTheWholeViewsStatistic) {
  std::shared_ptr<Backend> backend = vulkan_backend_on(driver());
  expect_crop_gives_the_whole_views_statistic([backend](const TrainingSetup& setup, SplatSet initial) {
    auto s = backend->start_training(setup, std::move(initial));
    EXPECT_TRUE(vk::is_device_training_session(*s));
    return s;
  });
}

GLINT_VULKAN_DRIVERS(VulkanDensifyCrop);
