#include <memory>

#include "glint/cli/commands.h"
#include "glint/cli/sfm_run.h"
#include "glint/cli/train_run.h"

namespace glint::cli {

void add_train(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  auto* sub = app.add_subcommand(
      "train", "Train splats from a posed-image dataset, or from photos or a video without poses (SfM first)");
  sub->add_option("dataset", args->dataset,
                  "Dataset folder or transforms .json; or a folder of photos, or a video, without poses "
                  "(COLMAP finds the poses into <output>/sfm first)")
      ->required();
  sub->add_option("-o,--output", args->out, "Output folder (default: out/<dataset name>)");
  add_train_flags(*sub, *args);
  add_sfm_flags(*sub, args->sfm);
  sub->callback([args, sub] {
    note_user_set(*sub, *args);
    args->sfm_flags = sfm_flags_given(*sub);
    int code = run_training(*args);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace glint::cli
