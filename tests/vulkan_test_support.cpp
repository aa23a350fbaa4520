#include "vulkan_test_support.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/vulkan_backend.h"

namespace glint::test {
namespace {

// The instance the Vulkan tests share: made by the first test that needs one and held until
// the run ends (one instance a run, not one a test). Tests that never touch Vulkan never
// make it, so they pay neither the drivers' start-up nor their allocations.
std::shared_ptr<vk::Instance>& held_instance() {
  static std::shared_ptr<vk::Instance> held;
  return held;
}

void hold_instance() {
  if (held_instance()) return;
  std::string why;
  held_instance() = vk::shared_instance(&why);
}

// Before any test creates an instance: the CPU drivers (unless the environment names drivers
// itself) and the validation layer.
class VulkanEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!std::getenv("VK_ICD_FILENAMES") && !std::getenv("VK_DRIVER_FILES") && *GLINT_TEST_VULKAN_ICDS)
      setenv("VK_ICD_FILENAMES", GLINT_TEST_VULKAN_ICDS, 1);
    vk::set_validation(true);
  }
  void TearDown() override { held_instance().reset(); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new VulkanEnvironment);

}  // namespace

int vulkan_device_of(const std::string& driver) {
  hold_instance();
  std::string why;
  for (const vk::DeviceInfo& d : vk::list_devices(&why)) {
    const bool lvp = d.driver.find("llvmpipe") != std::string::npos;
    const bool ss = d.driver.find("SwiftShader") != std::string::npos || d.name.find("SwiftShader") != std::string::npos;
    if ((driver == "lavapipe" && lvp) || (driver == "swiftshader" && ss)) return d.index;
  }
  return -1;
}

std::unique_ptr<Backend> vulkan_backend_on(const std::string& driver) {
  return make_vulkan_backend(vulkan_device_of(driver));
}

void VulkanTest::SetUp() {
  vk::validation_log().take();
  device_index = vulkan_device_of(driver());
  if (device_index < 0) {
    std::string why;
    vk::list_devices(&why);
    if (std::getenv("CI")) FAIL() << "the Vulkan driver " << driver() << " is missing under CI " << why;
    GTEST_SKIP() << "no " << driver() << " Vulkan device here " << why << "; skipping";
  }
}

void VulkanTest::TearDown() {
  const std::vector<std::string> messages = vk::validation_log().take();
  for (const std::string& m : messages) ADD_FAILURE() << "Vulkan validation " << m;
}

void VulkanStreamTest::SetUp() {
  VulkanTest::SetUp();
  if (IsSkipped() || HasFailure()) return;
  std::string why;
  device = vk::shared_device(vk::shared_instance(&why), device_index);
  stream = std::make_unique<vk::Stream>(*device);
}

void VulkanStreamTest::TearDown() {
  stream.reset();
  device.reset();
  VulkanTest::TearDown();
}

}  // namespace glint::test
