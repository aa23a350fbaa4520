#pragma once
// Each subcommand lives in its own file and adds itself to the app here; main only wires
// them up and turns errors into one line and an exit code.
#include <CLI/CLI.hpp>
#include <string>

namespace glint::cli {

void add_info(CLI::App& app);
void add_convert(CLI::App& app);
void add_render(CLI::App& app);
void add_train(CLI::App& app);
void add_eval(CLI::App& app);
void add_demo(CLI::App& app);
void add_relight(CLI::App& app);
void add_view(CLI::App& app);
void add_partition(CLI::App& app);
void add_merge(CLI::App& app);
void add_sfm(CLI::App& app);

// What `glint --version` prints (version.cpp).
std::string version_text();

// `glint info` on a splat file (.ply / .splat / .spz): count, SH degree, bounds, opacity and
// scale statistics. Lives in info_model.cpp.
void print_model_info(const std::string& path);

}  // namespace glint::cli
