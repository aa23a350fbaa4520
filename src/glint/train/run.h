#pragma once
// A training run as a library: the policy around the Trainer's steps. It resolves the
// options (presets, schedule scaling), evaluates the test split at the start, every
// eval_every steps and at the end, writes checkpoints every save_every steps and when
// interrupted, writes the run's files (scene.ply, cameras.json, eval.json, checkpoint),
// and reports what happens to an observer: the CLI's progress bar, a live viewer, a test.
//
// Files written into `out` (each atomically):
//   scene.ply (and scene.splat / scene.spz with write_splat / write_spz), cameras.json (every train and test
//   camera), eval.json (scores, timings, options), checkpoint.glintckp or checkpoint_path.
#include <atomic>
#include <functional>
#include <string>

#include "glint/backend/backend.h"
#include "glint/io/dataset.h"
#include "glint/train/evaluate.h"
#include "glint/train/run_options.h"
#include "glint/train/trainer.h"

namespace glint {

// What the run has done when it tells its observer something.
struct RunProgress {
  long step = 0;        // steps completed
  long steps = 0;       // steps the run goes to
  double loss = 0;      // the last step's
  std::size_t splats = 0;
  double test_psnr = 0;  // the latest evaluation's mean (0 without a test split)
};

struct RunResult {
  bool interrupted = false;  // stopped by the stop flag; checkpoint and scene.ply written
  long steps = 0;            // steps completed (all of them, also those before a resume)
  long steps_this_run = 0;
  std::size_t splats = 0;
  double first_test_psnr = 0;  // before training (or at the resumed step)
  EvalReport test;             // at the end (empty when interrupted or without a test split)
  double train_time_s = 0;     // the step loop's wall time
  double ms_per_step = 0;
  std::string checkpoint_path;
  int threads_at_end = 0;    // the step loop's thread count when it ended
  long thread_switches = 0;  // times the governor changed it
};

// The model a training step left, fetched on demand (RunObserver::on_step).
using StepModel = std::function<const GaussianModel&()>;

// Every hook has an empty default; the run calls them on its own thread.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_resumed(const std::string& /*checkpoint*/, long /*step*/) {}
  // step 0 (or the resumed step): the score before training
  virtual void on_eval(long /*step*/, const EvalReport&) {}
  // After every step; model() is the model as the step left it, valid until the next
  // step, fetched only when called (a device backend's session then copies it from device
  // memory, so an observer that does not read it every step costs nothing).
  virtual void on_step(const StepResult&, const RunProgress&, const StepModel& /*model*/) {}
  virtual void on_checkpoint(const std::string& /*path*/, long /*step*/) {}
  // Each test view of the final evaluation: its score and its (clamped) render.
  virtual void on_final_view(const ViewScore&, const ImageF&) {}
  virtual void on_finish(const RunResult&) {}
};

struct RunPaths {
  std::string out;              // the run's folder (created by the caller)
  std::string checkpoint_path;  // default: <out>/checkpoint.glintckp
  bool resume = false;          // continue from checkpoint_path
};

class TrainingRun {
 public:
  // `data` and `backend` must outlive the run.
  TrainingRun(const Dataset& data, const RunOptions& options, const RunPaths& paths, Backend& backend);

  // The options the trainer runs with (after presets and schedule scaling).
  const TrainOptions& train_options() const { return train_; }
  const std::string& checkpoint_path() const { return checkpoint_path_; }

  // Trains to options.train.steps, or until `stop` becomes true (then writes the
  // checkpoint and scene.ply and returns with interrupted set). A failing step throws
  // glint::Error; the last checkpoint written stays as it was.
  RunResult run(RunObserver& observer, const std::atomic<bool>& stop);

 private:
  EvalReport evaluate_now(const Trainer& trainer, ImageCache& test_images,
                          const std::function<void(std::size_t, const ViewScore&, const ImageF&)>& on_view = {});

  const Dataset& data_;
  RunOptions options_;
  TrainOptions train_;
  RunPaths paths_;
  std::string checkpoint_path_;
  Backend& backend_;
};

// The process's peak resident memory so far, MB.
double peak_memory_mb();

}  // namespace glint
