#pragma once
// The Vulkan backend as the registry and the CLI see it: plain declarations, no Vulkan
// headers.
#include <memory>
#include <string>
#include <vector>

#include "glint/backend/backend.h"

namespace glint {

// One Vulkan device as `glint info --devices` lists it.
struct VulkanDeviceSummary {
  int index = 0;
  std::string name, type, driver, api;
  unsigned subgroup_size = 0;
  unsigned long long max_binding_bytes = 0, memory_bytes = 0;
  bool gpu = false;  // a discrete or integrated GPU (what --backend auto may take)
  bool usable = false;
  std::string unusable_reason;
};

// Every device the Vulkan loader lists; empty with `why` set when there is no loader, no
// driver or no device.
std::vector<VulkanDeviceSummary> vulkan_devices(std::string* why = nullptr);

// Whether there is a device the backend would take: `device` (>= 0, --device N), else
// GLINT_VULKAN_DEVICE, else the best usable one (gpu_only: a discrete, then an integrated
// GPU; otherwise CPU-type devices such as lavapipe and SwiftShader too). `why` says why not
// in one line; `chosen` gets its index.
bool vulkan_device_present(bool gpu_only, int device, std::string* why = nullptr, int* chosen = nullptr);

// The backend on that device; throws glint::Error("--backend vulkan", why) when there is none.
std::unique_ptr<Backend> make_vulkan_backend(int device = -1, bool gpu_only = false);

}  // namespace glint

namespace glint {
// Caps the storage-buffer bindings a Vulkan backend makes at `bytes` (at most the device's
// maxStorageBufferRange), so that tests can run the split bindings of a large model on a
// small one. Throws glint::Error for a backend that is not the Vulkan one.
void set_vulkan_binding_limit(Backend& backend, unsigned long long bytes);
}  // namespace glint
