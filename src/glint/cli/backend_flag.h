#pragma once
// --backend and --device, shared by every command that renders (train, eval, render,
// relight, demo).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "glint/backend/backend.h"

namespace glint::cli {

// Adds --backend NAME (into `name`) and --device N (the Vulkan device; the command's one
// value, read by open_backend).
void add_backend_flag(CLI::App& cmd, std::string& name);

// The backend the flags name; prints auto's fallback note (one line on stderr) unless quiet.
// An unavailable backend throws glint::Error (exit 2).
std::unique_ptr<Backend> open_backend(const std::string& name, bool quiet = false);

}  // namespace glint::cli
