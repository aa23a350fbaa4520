// fine_tune (the merge's seam polish) on the Vulkan device session, both CPU drivers: the
// CPU backend's checks (fine_tune_steps.h), and the same fit as the CPU session's.
#include <gtest/gtest.h>

#include <memory>

#include "fine_tune_steps.h"
#include "vulkan_test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
class VulkanFineTune : public VulkanTest {};
}  // namespace

TEST_P(VulkanFineTune, KeepsTheRowsAndFitsAsTheCpuDoes) {
  std::unique_ptr<Backend> vulkan = vulkan_backend_on(driver());
  const double on_vulkan = expect_fine_tune_keeps_rows_and_fits(*vulkan);
  auto cpu = make_cpu_backend(1);
  const double on_cpu = expect_fine_tune_keeps_rows_and_fits(*cpu);
  EXPECT_NEAR(on_vulkan, on_cpu, 0.02);
}

TEST_P(VulkanFineTune, FullyMaskedViewsChangeNothing) {
  std::unique_ptr<Backend> vulkan = vulkan_backend_on(driver());
  expect_fully_masked_views_change_nothing(*vulkan);
}

GLINT_VULKAN_DRIVERS(VulkanFineTune);
