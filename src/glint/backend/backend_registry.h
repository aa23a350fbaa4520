#pragma once
// Backends chosen by name, as the CLI's --backend flag gives it.
#include <memory>
#include <string>
#include <vector>

#include "glint/backend/backend.h"

namespace glint {

// The backend names this build knows, including "auto" (every name --backend accepts).
std::vector<std::string> backend_names();

// Whether this build has the backend and this machine can run it; when not, `why` says why
// in a few words ("this glint was built without CUDA").
bool backend_available(const std::string& name, std::string* why = nullptr);

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  // Set when "auto" could not take the GPU this machine has (gpu_presence.h): one line
  // for the user. Empty on a machine without a GPU, which hears nothing about GPUs.
  std::string fallback_note;
};

// "cpu", "cuda" or "auto" (the fastest available: CUDA when this build has it and a device
// is present, else the CPU). An unknown or unavailable name throws glint::Error naming the
// flag and the reason. threads applies to the CPU backend (<= 0: OpenMP's default).
BackendChoice make_backend(const std::string& name, int threads = 0);

}  // namespace glint
