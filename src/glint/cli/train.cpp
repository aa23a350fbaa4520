#include <memory>

#include "glint/cli/commands.h"
#include "glint/cli/train_plan.h"
#include "glint/cli/sfm_run.h"
#include "glint/cli/train_run.h"
#include "glint/core/error.h"
#include "glint/partition/plan_file.h"

namespace glint::cli {

void add_train(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  auto cell = std::make_shared<long>(-1);
  auto* sub = app.add_subcommand(
      "train",
      "Train splats from a posed-image dataset, from photos or a video without poses (SfM first), or the cells of a plan");
  sub->add_option("dataset", args->dataset,
                  "Dataset folder or transforms .json; or a folder of photos, or a video, without poses "
                  "(COLMAP finds the poses into <output>/sfm first); or a plan folder written by glint partition")
      ->required();
  sub->add_option("-o,--output", args->out,
                  "Output folder (default: out/<dataset name>; for a plan's --cell K: PLAN/cells/K; for a whole plan: "
                  "where the merge goes, PLAN/merged)");
  sub->add_option("--cell", *cell,
                  "Train this cell of a plan only (without it: every cell not yet trained, one after another, then "
                  "the merge)")
      ->check(CLI::NonNegativeNumber)
      ->group("Plans (glint partition)");
  add_train_flags(*sub, *args);
  add_sfm_flags(*sub, args->sfm);
  sub->callback([args, cell, sub] {
    int code = 0;
    if (partition::is_plan(args->dataset)) {
      code = run_plan_training(*sub, *args, *cell);
    } else {
      if (*cell >= 0) throw Error(args->dataset, "--cell needs a plan folder (glint partition writes one), not a dataset");
      note_user_set(*sub, *args);
      args->sfm_flags = sfm_flags_given(*sub);
      code = run_training(*args);
    }
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace glint::cli
