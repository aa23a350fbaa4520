#include "glint/cli/backend_flag.h"

#include <cstdio>

#include "glint/backend/backend_registry.h"

namespace glint::cli {

namespace {
// One command runs per process, so its --device lives here rather than in every command's
// arguments.
int& device_flag() {
  static int device = -1;
  return device;
}
}  // namespace

void add_backend_flag(CLI::App& cmd, std::string& name) {
  cmd.add_option("--backend", name,
                 "Where to render: auto (CUDA when built in and a GPU is present, else a Vulkan GPU, else the CPU), "
                 "cpu, cuda or vulkan")
      ->check(CLI::IsMember(backend_names()))
      ->capture_default_str();
  cmd.add_option("--device", device_flag(),
                 "The Vulkan device to use (glint info --devices lists them; default: GLINT_VULKAN_DEVICE, else the "
                 "best GPU)")
      ->check(CLI::NonNegativeNumber);
}

std::unique_ptr<Backend> open_backend(const std::string& name, bool quiet) {
  BackendChoice c = make_backend(name, 0, device_flag());
  if (!quiet && !c.fallback_note.empty()) std::fprintf(stderr, "glint: %s\n", c.fallback_note.c_str());
  return std::move(c.backend);
}

}  // namespace glint::cli
