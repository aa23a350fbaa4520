#pragma once
// How a training run changes its set of splats: adaptive density control (3DGS) or
// 3DGS-MCMC. The trainer calls a strategy at two points of every step, so that the step
// itself has no branch per strategy:
//   forward -> loss -> backward -> after_backward -> Adam -> after_adam
#include <memory>
#include <span>

#include "glint/backend/training_session.h"
#include "glint/train/rng.h"

namespace glint {

struct TrainOptions;

class DensifyStrategy {
 public:
  virtual ~DensifyStrategy() = default;
  virtual const char* name() const = 0;
  // After the backward, before Adam: a regulariser's gradient (returned value: its loss,
  // added to the step's) or densification statistics.
  virtual double after_backward(TrainingSession& session, long step) = 0;
  // After Adam: the set changes the schedule calls for (clone, split, prune, relocate,
  // grow, opacity reset, noise). Returns whether anything but Adam wrote parameters.
  virtual bool after_adam(TrainingSession& session, long step, float means_lr, Rng& rng) = 0;
};

// The strategy TrainOptions::strategy names. scene_radius: Dataset::radius (ADC's extent).
std::unique_ptr<DensifyStrategy> make_strategy(const TrainOptions& options, double scene_radius);

struct DensifyOptions;
struct McmcOptions;
std::unique_ptr<DensifyStrategy> make_adc_strategy(const DensifyOptions& options, double extent);
std::unique_ptr<DensifyStrategy> make_mcmc_strategy(const McmcOptions& options);

}  // namespace glint
