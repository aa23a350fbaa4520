#pragma once
// Each subcommand lives in its own file and adds itself to the app here; main only wires
// them up and turns errors into one line and an exit code.
#include <CLI/CLI.hpp>

namespace glint::cli {

void add_info(CLI::App& app);
void add_convert(CLI::App& app);

}  // namespace glint::cli
