// `glint --version`: the version, the backends this build has and the CPU kernel builds.
// Asked for, so it may talk about GPUs; computed only when asked (CUDA's start-up is slow).
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/backend_registry.h"
#include "glint/backend/gpu_presence.h"
#if defined(GLINT_WITH_VULKAN)
#include "glint/backend/vulkan/vulkan_backend.h"
#endif
#include "glint/cli/commands.h"

namespace glint::cli {

std::string version_text() {
  std::string s = std::string("glint ") + GLINT_VERSION + "\n";
  // One line per backend: what this build has, and what this machine offers it.
  s += "backends: cpu";
#if defined(GLINT_CUDA_ARCHS)
  std::string why;
  std::string machine;
  if (backend_available("cuda", &why)) {
    machine = "a CUDA device is ready";
  } else if (nvidia_gpu_installed()) {
    machine = "an NVIDIA GPU CUDA cannot use: " + why;
  } else {
    machine = "no NVIDIA GPU on this machine";
  }
  s += "\n  cuda: device code for CUDA architectures " GLINT_CUDA_ARCHS "; " + machine;
#else
  s += "\n  cuda: not built (configure with -DGLINT_CUDA=ON where nvcc is installed)";
#endif
#if defined(GLINT_WITH_VULKAN)
  std::string vk_why;
  const std::vector<VulkanDeviceSummary> devices = vulkan_devices(&vk_why);
  std::string list;
  for (const VulkanDeviceSummary& d : devices)
    list += (list.empty() ? "" : ", ") + d.name + " (" + d.type + (d.usable ? "" : ", unusable") + ")";
  s += "\n  vulkan: SPIR-V for Vulkan 1.1; " + (devices.empty() ? "no device: " + vk_why : "devices: " + list);
#else
  s += "\n  vulkan: not built (configure with -DGLINT_VULKAN=ON where the Vulkan headers, glslc, spirv-val and "
       "SPIRV-Cross are installed)";
#endif
  s += "\n";
#if defined(__x86_64__) || defined(__i386__)
  s += "cpu kernels: portable, avx2, avx512; this CPU runs ";
#else
  s += "cpu kernels: portable; this CPU runs ";
#endif
  s += cpu_simd_name(active_cpu_simd());
  s += " (GLINT_CPU_SIMD=portable|avx2|avx512 caps it)\n";
#if defined(__clang__)
  s += "compiler: clang " __clang_version__;
#elif defined(__GNUC__)
  s += "compiler: GCC " __VERSION__;
#endif
  return s;
}

}  // namespace glint::cli
