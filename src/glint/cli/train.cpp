#include <memory>

#include "glint/cli/commands.h"
#include "glint/cli/train_run.h"

namespace glint::cli {

void add_train(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  auto* sub = app.add_subcommand("train", "Train splats from a posed-image dataset (3DGS recipe, CPU)");
  sub->add_option("dataset", args->dataset, "Dataset folder or transforms .json")->required();
  sub->add_option("-o,--output", args->out, "Output folder (default: out/<dataset name>)");
  add_train_flags(*sub, *args);
  sub->callback([args, sub] {
    note_user_set(*sub, *args);
    int code = run_training(*args);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace glint::cli
