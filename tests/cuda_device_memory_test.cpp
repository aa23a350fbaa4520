// The device memory count behind eval.json's peak_device_memory_mb, on the emulator's
// buffers (the same DeviceBuffer code as the device's).
#include <gtest/gtest.h>

#include "glint/backend/cuda/device_buffer.h"

using namespace glint::cuda;

TEST(CudaDeviceMemory, BuffersCountWhileTheyHoldMemoryAndThePeakStays) {
  DeviceMemoryUse& use = device_memory_use();
  const long long before = use.now.load();
  {
    DeviceBuffer<float> a(1 << 20);
    EXPECT_EQ(use.now.load(), before + 4 * (1 << 20));
    a.resize(1 << 10);  // shrinking keeps the allocation
    EXPECT_EQ(use.now.load(), before + 4 * (1 << 20));
    DeviceBuffer<double> b(1000);
    EXPECT_EQ(use.now.load(), before + 4 * (1 << 20) + 8000);
    DeviceBuffer<double> c = std::move(b);  // moving hands the memory over, counted once
    EXPECT_EQ(use.now.load(), before + 4 * (1 << 20) + 8000);
    a.resize(1 << 21);  // growing frees the old block
    EXPECT_EQ(use.now.load(), before + 8 * (1 << 20) + 8000);
  }
  EXPECT_EQ(use.now.load(), before);
  EXPECT_GE(use.peak.load(), before + 8 * (1 << 20) + 8000);
}
