#include "glint/cli/backend_flag.h"

#include <cstdio>

#include "glint/backend/backend_registry.h"

namespace glint::cli {

void add_backend_flag(CLI::App& cmd, std::string& name) {
  cmd.add_option("--backend", name,
                 "Where to render: auto (CUDA when built in and a GPU is present, else the CPU), cpu or cuda")
      ->check(CLI::IsMember(backend_names()))
      ->capture_default_str();
}

std::unique_ptr<Backend> open_backend(const std::string& name, bool quiet) {
  BackendChoice c = make_backend(name);
  if (!quiet && !c.fallback_note.empty()) std::fprintf(stderr, "glint: %s\n", c.fallback_note.c_str());
  return std::move(c.backend);
}

}  // namespace glint::cli
