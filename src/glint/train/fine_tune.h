#pragma once
// More training for a model that has finished its own: the last steps of a schedule, for a
// model assembled from parts (a merged partition) whose parts should fit each other where
// they meet.
#include <functional>

#include "glint/backend/backend.h"
#include "glint/core/gaussians.h"
#include "glint/io/dataset.h"
#include "glint/train/trainer.h"

namespace glint {

// Trains `model` for `steps` steps on `data`'s training views (their masks included) as
// the last `steps` steps of the schedule `options` lays out over options.steps: the final
// position learning rate and every SH degree, Adam from zero moments, and no densification,
// pruning or opacity reset, so that the result has the model's rows in their order. ADC's
// plain steps whatever options.strategy says (MCMC's noise would move splats no view sees).
// on_step (optional) hears each step's number, 1..steps. Throws glint::Error for a dataset
// without training views or a step that stops being finite.
GaussianModel fine_tune(const GaussianModel& model, const Dataset& data, TrainOptions options, long steps,
                        Backend& backend, const std::function<void(long)>& on_step = {});

}  // namespace glint
