#pragma once
// `glint relight` as a function, shared with `glint demo`.
#include <string>
#include <vector>

#include "glint/cli/dataset_options.h"
#include "glint/light/relighter.h"

namespace glint::cli {

struct RelightArgs {
  std::string model, cameras, out, split = "test", score;
  std::vector<std::string> lights;  // light files or folders of them (read_lights_files)
  DatasetFlags flags;
  RelightOptions opt;
  bool force = false;
  bool antialiased = false;   // render the model with the 2D filter (marks it, as its file would)
  bool write_albedo = false;  // also <out>/albedo/r_<i>.png: the de-lit albedo each view is shaded with
  std::string backend = "auto";
};

void run_relight(const RelightArgs& args);

}  // namespace glint::cli
