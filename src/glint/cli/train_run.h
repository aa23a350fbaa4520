#pragma once
// `glint train` as a function, shared with `glint demo`: the flags of a training run, and
// the run itself (train/run.h) reported through a progress bar, with Ctrl-C turned into a
// checkpoint.
#include <functional>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/capture/sfm.h"
#include "glint/cli/dataset_options.h"
#include "glint/train/run.h"
#include "glint/train/run_options.h"

namespace glint::cli {

struct TrainArgs {
  std::string dataset;
  std::string out;
  DatasetFlags data;
  RunOptions run;
  bool resume = false;
  std::string resume_from;  // default <out>/checkpoint.glintckp
  bool save_renders = false;
  bool force = false;
  bool quiet = false;
  std::string backend = "auto";
  // --view: serve the run's model to the viewer page while it trains (train_live_view.h)
  bool view = false;
  std::string view_host = "127.0.0.1";
  int view_port = 0;
  double view_every_s = 2.0;
  // A capture without poses (photos or a video): SfM into <out>/sfm first (cli/sfm_run.h).
  capture::SfmOptions sfm;
  std::vector<std::string> sfm_flags;  // SfM flags given on the command line
};

// What a caller may put in place of run_training's own steps (glint train PLAN: a cell's
// dataset view, one backend for every cell, a record of the finished cell).
struct TrainingHooks {
  Backend* backend = nullptr;  // else --backend is opened
  // Makes the dataset (else load_dataset(args.dataset) with the dataset flags).
  std::function<Dataset(const DatasetOptions&)> load;
  // After a run that finished (not interrupted) and wrote its files.
  std::function<void(const RunResult&, const TrainingRun&)> on_finished;
};

// Returns the process exit code (0 done, 130 interrupted with a checkpoint written).
// SIGINT (Ctrl-C), SIGTERM and SIGUSR1 (what a cluster scheduler sends before a time limit
// or a preemption) all stop the run with a checkpoint.
int run_training(TrainArgs args, const TrainingHooks& hooks = {});

// Adds every training flag to `cmd`, writing into `args`.
void add_train_flags(CLI::App& cmd, TrainArgs& args);

// After parsing: records in args.run.user_set which of the options that presets and the
// schedule may change the user gave on the command line.
void note_user_set(const CLI::App& cmd, TrainArgs& args);

}  // namespace glint::cli
