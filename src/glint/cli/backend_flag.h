#pragma once
// --backend, shared by every command that renders (train, eval, render, relight, demo).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "glint/backend/backend.h"

namespace glint::cli {

void add_backend_flag(CLI::App& cmd, std::string& name);

// The backend the flag names; prints auto's fallback note (one line on stderr) unless quiet.
// An unavailable backend throws glint::Error (exit 2).
std::unique_ptr<Backend> open_backend(const std::string& name, bool quiet = false);

}  // namespace glint::cli
