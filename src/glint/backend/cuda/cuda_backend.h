#pragma once
// The CUDA backend as the registry sees it: plain declarations, no CUDA headers, so that
// host code built without nvcc can call it (backend_registry.cpp in CUDA builds).
#include <memory>
#include <string>

#include "glint/backend/backend.h"

namespace glint {

// Whether the CUDA runtime finds a device. Any runtime error (no driver, no device, a
// driver older than the runtime) counts as none; `why` then names it.
bool cuda_device_present(std::string* why = nullptr);

// Renders on device 0. Throws glint::Error when there is no device.
std::unique_ptr<Backend> make_cuda_backend();

}  // namespace glint
