#include "glint/backend/backend_registry.h"

#include "glint/core/error.h"

namespace glint {

std::vector<std::string> backend_names() { return {"auto", "cpu", "cuda"}; }

bool backend_available(const std::string& name, std::string* why) {
  if (name == "cpu" || name == "auto") return true;
  if (name == "cuda") {
    // No CUDA backend class exists yet (backend/cuda/ holds its kernels), so no build has it.
    if (why) *why = "this glint was built without CUDA (configure with -DGLINT_CUDA=ON where nvcc is installed)";
    return false;
  }
  if (why) *why = "unknown backend (choose from auto, cpu, cuda)";
  return false;
}

BackendChoice make_backend(const std::string& name, int threads) {
  std::string why;
  if (!backend_available(name, &why)) throw Error("--backend " + name, why);
  BackendChoice c;
  // "auto" prefers CUDA; without it in this build there is nothing to fall back from, so it
  // says nothing (a CUDA build without a device says that it fell back).
  c.backend = make_cpu_backend(threads);
  return c;
}

}  // namespace glint
