#pragma once
// The merge's seam polish: the merged model's splats near the borders between cells
// trained a little more on the training pixels near those borders (partition/seam_band.h),
// so that the two sides of each border fit each other. Takes the backend it renders and
// trains with from its caller, as the evaluator does.
#include <cstddef>
#include <functional>

#include "glint/backend/backend.h"
#include "glint/io/dataset.h"
#include "glint/partition/plan.h"
#include "glint/train/trainer.h"

namespace glint::partition {

struct SeamPolishReport {
  std::size_t splats_trained = 0;  // within the train width
  std::size_t splats_changed = 0;  // within the keep width: the ones that go out trained
  std::size_t views = 0;           // training views that show a border, each cut to it
  long steps = 0;
};

// `merged`: the cells merged by `plan`; `data`: the plan's dataset; `options`: the cells'
// training options (the polish is the last `steps` steps of their schedule, fine_tune).
// Returns `merged` with the splats within the keep width of a border trained, every other
// splat as it was; `merged` itself when steps is 0 or no training view shows a border.
GaussianModel polish_seams(const Plan& plan, const GaussianModel& merged, const Dataset& data,
                           const TrainOptions& options, long steps, Backend& backend,
                           SeamPolishReport* report = nullptr, const std::function<void(long)>& on_step = {});

}  // namespace glint::partition
