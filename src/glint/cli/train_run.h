#pragma once
// `glint train` as a function, shared with `glint demo`: load the dataset, train with a
// progress bar, evaluate, write every output atomically, checkpoint on request and on
// Ctrl-C.
#include <string>

#include "glint/cli/dataset_options.h"
#include "glint/train/trainer.h"

namespace glint::cli {

struct TrainArgs {
  std::string dataset;
  std::string out;
  DatasetFlags data;
  TrainOptions train;
  std::string preset;            // "lightable": geometry regularisers for relighting
  long schedule_steps = 30000;  // length the LR / densification schedule is laid out for
  long eval_every = 0;  // test PSNR every N steps (0: only at the start and the end)
  long save_every = 0;  // checkpoint every N steps
  bool resume = false;
  std::string resume_from;  // default <out>/checkpoint.glintckp
  bool save_renders = false;
  bool write_splat = false;
  bool force = false;
  std::size_t image_cache_mb = 4096;
  bool quiet = false;
};

// Returns the process exit code (0 done, 130 interrupted with a checkpoint written).
int run_training(TrainArgs args);

// Applies a --preset to the options the user did not set explicitly (still at default).
void apply_preset(TrainArgs& args);

// Adds every training flag to `cmd`, writing into `args`.
void add_train_flags(CLI::App& cmd, TrainArgs& args);

}  // namespace glint::cli
