#pragma once
// `glint train PLAN`: the cells of a partition plan as ordinary training runs. With
// --cell K one cell; without, every cell not yet trained, one after another, then the
// merge. Flags stored in the plan (given to glint partition after --) come first, the
// command line's win.
#include <CLI/CLI.hpp>

#include "glint/cli/train_run.h"

namespace glint::cli {

// `cmd` is the parsed train command (its given flags are read back), `given` what it
// parsed, `cell` the --cell value or -1. Returns the exit code.
int run_plan_training(const CLI::App& cmd, const TrainArgs& given, long cell);

}  // namespace glint::cli
