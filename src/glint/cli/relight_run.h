#pragma once
// `glint relight` as a function, shared with `glint demo`.
#include <string>

#include "glint/cli/dataset_options.h"
#include "glint/light/relighter.h"

namespace glint::cli {

struct RelightArgs {
  std::string model, cameras, lights, out, split = "test", score;
  DatasetFlags flags;
  RelightOptions opt;
  bool force = false;
  std::string backend = "auto";
};

void run_relight(const RelightArgs& args);

}  // namespace glint::cli
