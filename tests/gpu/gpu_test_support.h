#pragma once
// What the tests that need a CUDA device share: a visible skip where none is found (a
// failure where scripts/gpu-check.sh sets GLINT_REQUIRE_GPU), and a host vector copied to
// the device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "glint/backend/cuda/cuda_backend.h"
#include "glint/backend/cuda/device_buffer.h"

namespace glint::test {

inline bool skip_without_gpu() {
  if (cuda_device_present()) return false;
  if (std::getenv("GLINT_REQUIRE_GPU")) ADD_FAILURE() << "no CUDA device, and GLINT_REQUIRE_GPU is set";
  return true;
}

template <class T, class A>
cuda::DeviceBuffer<T> on_device(const std::vector<T, A>& v) {
  cuda::DeviceBuffer<T> b;
  cuda::upload(b, v.data(), v.size());
  return b;
}

}  // namespace glint::test
