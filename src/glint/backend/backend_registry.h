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
// in a few words ("this glint was built without CUDA"). `device`: the Vulkan device asked
// for (--device N), -1 for the default.
bool backend_available(const std::string& name, std::string* why = nullptr, int device = -1);

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  // Set when "auto" could not take the GPU this machine has (gpu_presence.h): one line
  // for the user. Empty on a machine without a GPU, which hears nothing about GPUs.
  std::string fallback_note;
};

// "cpu", "cuda", "vulkan" or "auto" (the fastest available: CUDA when this build has it and a
// device is present, else a Vulkan GPU (discrete, then integrated) when this build has the
// Vulkan backend, else the CPU; a CPU-type Vulkan device such as lavapipe is never taken by
// "auto", only by "vulkan"). device >= 0 (--device N) picks the Vulkan device N (for
// "vulkan", and for "auto", which then takes it); with "cpu" or "cuda" it is an error. An
// unknown or unavailable name throws glint::Error naming the flag and the reason. threads
// applies to the CPU backend (<= 0: OpenMP's default).
BackendChoice make_backend(const std::string& name, int threads = 0, int device = -1);

// What `glint info --devices` prints: every backend's devices on this machine.
struct DeviceEntry {
  std::string backend;  // "cpu", "cuda", "vulkan"
  int index = -1;       // --device N (Vulkan), else -1
  std::string name;
  std::string detail;   // type, driver, limits
  bool usable = true;
  std::string note;     // why not usable, or what is not built
};
// The entries and, in `auto_choice`, what --backend auto takes here.
std::vector<DeviceEntry> backend_devices(std::string* auto_choice);

}  // namespace glint
