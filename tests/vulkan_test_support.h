#pragma once
// The Vulkan tests' setup: they run on both CPU Vulkan drivers, lavapipe (Mesa, subgroup size
// 8, 128 MiB binding range) and SwiftShader (Chromium's, subgroup size 4, 1 GiB), in one
// process, with the Khronos validation layer (synchronization validation included) on; any
// validation message fails the test that caused it (VulkanTest's TearDown). A driver that is
// missing skips its tests with a message, and fails them under CI.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "glint/backend/backend.h"
#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/stream.h"

namespace glint::test {

// "lavapipe" or "swiftshader": the device index of that driver in the loader's list, or -1.
int vulkan_device_of(const std::string& driver);

// The backend on that driver's device (validation on).
std::unique_ptr<Backend> vulkan_backend_on(const std::string& driver);

class VulkanTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;  // fails on any validation message the test caused
  const std::string& driver() const { return GetParam(); }
  int device_index = -1;
};

// A VulkanTest that talks to the driver's device directly, through one stream.
class VulkanStreamTest : public VulkanTest {
 protected:
  void SetUp() override;
  void TearDown() override;  // the stream and device go before the validation check
  std::shared_ptr<vk::Device> device;
  std::unique_ptr<vk::Stream> stream;
};

}  // namespace glint::test

// Instantiates a VulkanTest-derived suite for both drivers.
#define GLINT_VULKAN_DRIVERS(Suite) \
  INSTANTIATE_TEST_SUITE_P(Drivers, Suite, ::testing::Values(std::string("lavapipe"), std::string("swiftshader")), \
                           [](const ::testing::TestParamInfo<std::string>& i) { return i.param; })
