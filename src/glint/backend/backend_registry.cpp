#include "glint/backend/backend_registry.h"

#include <cstdio>

#include "glint/backend/gpu_presence.h"
#include "glint/core/error.h"
#if defined(GLINT_WITH_CUDA)
#include "glint/backend/cuda/cuda_backend.h"
#endif
#if defined(GLINT_WITH_VULKAN)
#include "glint/backend/vulkan/vulkan_backend.h"
#endif

namespace glint {

namespace {
[[maybe_unused]] std::string why_no_cuda() {
  return "this glint was built without CUDA (configure with -DGLINT_CUDA=ON where nvcc is installed)";
}
}  // namespace

std::vector<std::string> backend_names() { return {"auto", "cpu", "cuda", "vulkan"}; }

bool backend_available(const std::string& name, std::string* why, int device) {
  if (device >= 0 && (name == "cpu" || name == "cuda")) {
    if (why) *why = "--device picks a Vulkan device; it does not apply to --backend " + name;
    return false;
  }
  if (name == "cpu") return true;
  if (name == "auto") {
#if defined(GLINT_WITH_VULKAN)
    if (device >= 0) return vulkan_device_present(false, device, why);
#else
    if (device >= 0) {
      if (why) *why = "--device picks a Vulkan device, and this glint was built without Vulkan";
      return false;
    }
#endif
    return true;
  }
  if (name == "cuda") {
#if defined(GLINT_WITH_CUDA)
    return cuda_device_present(why);
#else
    if (why) *why = why_no_cuda();
    return false;
#endif
  }
  if (name == "vulkan") {
#if defined(GLINT_WITH_VULKAN)
    return vulkan_device_present(false, device, why);
#else
    if (why)
      *why = "this glint was built without Vulkan (configure with -DGLINT_VULKAN=ON where the Vulkan headers, glslc, "
             "spirv-val and SPIRV-Cross are installed)";
    return false;
#endif
  }
  if (why) *why = "unknown backend (choose from auto, cpu, cuda, vulkan)";
  return false;
}

BackendChoice make_backend(const std::string& name, int threads, int device) {
  std::string why;
  if (!backend_available(name, &why, device)) throw Error("--backend " + name, why);
  BackendChoice c;
#if defined(GLINT_WITH_VULKAN)
  if (name == "vulkan" || (name == "auto" && device >= 0)) {
    c.backend = make_vulkan_backend(device);
    return c;
  }
#endif
#if defined(GLINT_WITH_CUDA)
  if (name == "cuda") {
    c.backend = make_cuda_backend();
    return c;
  }
#endif
  if (name == "auto") {
#if defined(GLINT_WITH_CUDA)
    std::string cuda_why;
    if (cuda_device_present(&cuda_why)) {
      c.backend = make_cuda_backend();
      return c;
    }
#endif
#if defined(GLINT_WITH_VULKAN)
    // a real GPU only: a CPU Vulkan driver (lavapipe, SwiftShader) is slower than the CPU backend
    if (vulkan_device_present(true, -1)) {
      c.backend = make_vulkan_backend(-1, true);
      return c;
    }
#endif
    // Only a machine with an NVIDIA GPU hears why it is not used; without one, nothing.
    if (nvidia_gpu_installed()) {
#if defined(GLINT_WITH_CUDA)
      const std::string why_not = "CUDA cannot use it: " + cuda_why;
#else
      const std::string why_not = why_no_cuda();
#endif
      c.fallback_note = "--backend auto: an NVIDIA GPU is installed but " + why_not + ", so falling back to the CPU";
    }
  }
  c.backend = make_cpu_backend(threads);
  return c;
}

std::vector<DeviceEntry> backend_devices(std::string* auto_choice) {
  std::vector<DeviceEntry> out;
  {
    auto cpu = make_cpu_backend();
    out.push_back({"cpu", -1, cpu->device(), "", true, ""});
  }
  std::string why;
#if defined(GLINT_WITH_CUDA)
  if (cuda_device_present(&why))
    out.push_back({"cuda", 0, make_cuda_backend()->device(), "", true, ""});
  else
    out.push_back({"cuda", -1, "", "", false, why});
#else
  out.push_back({"cuda", -1, "", "", false, "this glint was built without CUDA"});
#endif
#if defined(GLINT_WITH_VULKAN)
  why.clear();
  const std::vector<VulkanDeviceSummary> devices = vulkan_devices(&why);
  if (devices.empty()) out.push_back({"vulkan", -1, "", "", false, why});
  for (const VulkanDeviceSummary& d : devices) {
    char detail[256];
    std::snprintf(detail, sizeof detail, "%s, %s, Vulkan %s, subgroup %u, binding range %llu MiB, %llu MiB",
                  d.type.c_str(), d.driver.c_str(), d.api.c_str(), d.subgroup_size, d.max_binding_bytes >> 20,
                  d.memory_bytes >> 20);
    out.push_back({"vulkan", d.index, d.name, detail, d.usable, d.usable ? (d.gpu ? "" : "used only when named (--backend vulkan)") : d.unusable_reason});
  }
#else
  out.push_back({"vulkan", -1, "", "", false, "this glint was built without Vulkan"});
#endif
  if (auto_choice) {
    const BackendChoice c = make_backend("auto");
    *auto_choice = std::string(c.backend->name()) + ": " + c.backend->device();
  }
  return out;
}

}  // namespace glint
