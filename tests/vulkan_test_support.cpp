#include "vulkan_test_support.h"

#include <cstdlib>
#include <string>

#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/vulkan_backend.h"

namespace glint::test {
namespace {

// Before any test creates an instance: the CPU drivers (unless the environment names drivers
// itself) and the validation layer.
class VulkanEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!std::getenv("VK_ICD_FILENAMES") && !std::getenv("VK_DRIVER_FILES") && *GLINT_TEST_VULKAN_ICDS)
      setenv("VK_ICD_FILENAMES", GLINT_TEST_VULKAN_ICDS, 1);
    vk::set_validation(true);
    std::string why;
    instance_ = vk::shared_instance(&why);  // held for the whole run: one instance, not one a test
  }
  void TearDown() override { instance_.reset(); }

 private:
  std::shared_ptr<vk::Instance> instance_;
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new VulkanEnvironment);

}  // namespace

int vulkan_device_of(const std::string& driver) {
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

}  // namespace glint::test
