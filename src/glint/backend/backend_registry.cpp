#include "glint/backend/backend_registry.h"

#include "glint/backend/gpu_presence.h"
#include "glint/core/error.h"
#if defined(GLINT_WITH_CUDA)
#include "glint/backend/cuda/cuda_backend.h"
#endif

namespace glint {

namespace {
[[maybe_unused]] std::string why_no_cuda() {
  return "this glint was built without CUDA (configure with -DGLINT_CUDA=ON where nvcc is installed)";
}
}  // namespace

std::vector<std::string> backend_names() { return {"auto", "cpu", "cuda"}; }

bool backend_available(const std::string& name, std::string* why) {
  if (name == "cpu" || name == "auto") return true;
  if (name == "cuda") {
#if defined(GLINT_WITH_CUDA)
    return cuda_device_present(why);
#else
    if (why) *why = why_no_cuda();
    return false;
#endif
  }
  if (why) *why = "unknown backend (choose from auto, cpu, cuda)";
  return false;
}

BackendChoice make_backend(const std::string& name, int threads) {
  std::string why;
  if (!backend_available(name, &why)) throw Error("--backend " + name, why);
  BackendChoice c;
#if defined(GLINT_WITH_CUDA)
  if (name == "cuda") {
    c.backend = make_cuda_backend();
    return c;
  }
  if (name == "auto") {
    if (cuda_device_present(&why)) {
      c.backend = make_cuda_backend();
      return c;
    }
    // Only a machine that has a GPU hears why it is not used.
    if (nvidia_gpu_installed())
      c.fallback_note = "--backend auto: an NVIDIA GPU is installed but CUDA cannot use it: " + why +
                        ", so falling back to the CPU";
  }
#else
  // A GPU this build cannot use is worth one line; no GPU, nothing.
  if (name == "auto" && nvidia_gpu_installed())
    c.fallback_note = "--backend auto: an NVIDIA GPU is installed but " + why_no_cuda() + ", so falling back to the CPU";
#endif
  c.backend = make_cpu_backend(threads);
  return c;
}

}  // namespace glint
