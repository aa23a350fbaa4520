#pragma once
// The 3DGS training loop: one step = pick a view, render, loss, backward, densification
// statistics, Adam, then density control (ADC or MCMC). Everything random comes from one
// RNG saved in checkpoints and the view order is a pure function of (seed, epoch), so a
// resumed run is bit-identical to an uninterrupted one.
#include <cstdint>
#include <string>

#include "glint/backend/backend.h"
#include "glint/backend/training_session.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/checkpoint.h"
#include "glint/train/densify.h"
#include "glint/train/geometry_loss.h"
#include "glint/train/init.h"
#include "glint/train/loss.h"
#include "glint/train/mcmc.h"
#include "glint/train/rng.h"
#include "glint/train/schedule.h"
#include "glint/train/splat_set.h"
#include "glint/train/strategy.h"

namespace glint {

enum class Strategy { kAdc, kMcmc };

struct TrainOptions {
  long steps = 30000;
  std::uint64_t seed = 0;
  Strategy strategy = Strategy::kAdc;
  LossOptions loss;
  LearningRates lr;
  DensifyOptions densify;
  McmcOptions mcmc;
  InitOptions init;
  long sh_degree_every = 1000;
  int max_sh_degree = 3;
  bool selective_adam = false;     // update only the splats seen in the step
  bool random_background = false;  // a random colour behind every training render
  bool antialiased = false;        // Mip-Splatting 2D filter
  long coarse_to_fine = 0;         // steps at reduced resolution: 1/4 for the first half, 1/2 after
  // Memory for the training images' SSIM blurs (ssim.h: SsimTargetStats), kept across steps
  // so that a step blurs three planes instead of five. Not part of to_json: the blurs are
  // the same bits either way, so the budget never changes a result.
  std::size_t ssim_cache_mb = 1024;
  // Geometry regularisers (geometry_loss.h), off at weight 0.
  float normal_weight = 0.f;  // normal consistency between splat normals and depth normals
  long normal_from = 7000;
  // Normal consistency's depth-edge test (geometry_loss.h: edge_eps): pixels whose
  // neighbours are not on one plane with them add nothing. 0: off.
  float normal_edge = 0.f;
  float flatten_weight = 0.f;  // mean smallest scale
  long flatten_from = 0;
  float distortion_weight = 0.f;  // mean depth distortion sum_ij w_i w_j |z_i - z_j| per pixel
  long distortion_from = 0;

  // What a resumed run must agree on (everything that changes the result).
  std::string to_json() const;
};

struct StepResult {
  long step = 0;
  double loss = 0;
  std::size_t splats = 0;
  std::size_t visible = 0;
  // Wall time of each phase of the step, milliseconds (bench/train_step.cpp prints them).
  double ms_forward = 0;   // target image, forward render
  double ms_loss = 0;      // L1 + SSIM and their gradient
  double ms_backward = 0;  // rasterizer backward, flattening regulariser
  double ms_stats = 0;     // visibility, the strategy's after_backward (statistics or regulariser)
  double ms_optimizer = 0; // Adam
  double ms_densify = 0;   // the strategy's after_adam (densification, relocation), finiteness check
};

class Trainer {
 public:
  // `cache` serves the images of dataset.train. The state lives in the backend's training
  // session; only scalars cross per step.
  Trainer(const Dataset& dataset, const TrainOptions& options, Backend& backend, ImageCache& cache);
  // Starts from `initial` (fresh Adam moments as it holds them) at step `start_step` of
  // the schedule instead of from the dataset's points at step 0 (train/fine_tune.h).
  Trainer(const Dataset& dataset, const TrainOptions& options, Backend& backend, ImageCache& cache, SplatSet initial,
          long start_step);

  // Continues from a checkpoint; throws glint::Error naming `what` when it was written
  // with other options.
  void restore(TrainCheckpoint checkpoint, const std::string& what);
  TrainCheckpoint checkpoint() const;

  // Runs step current_step()+1. Throws glint::Error naming the step and the tensor when
  // the loss or a parameter stops being finite (the model then holds the bad values).
  StepResult step();

  long current_step() const { return step_; }
  const GaussianModel& model() const { return session_->state().model; }
  int active_sh_degree() const;
  const std::array<float, 3>& background() const { return dataset_.background; }

 private:
  std::size_t view_for_step(long step) const;
  // Throws when the loss or a parameter is not finite. adam_bad: Adam's answer for the
  // values it wrote; all: read every parameter (something else changed them too).
  void check_finite(long step, double loss, int adam_bad, bool all);

  const Dataset& dataset_;
  TrainOptions options_;
  std::unique_ptr<TrainingSession> session_;
  Rng rng_;
  long step_ = 0;
  ExpLrSchedule means_lr_;
  std::unique_ptr<DensifyStrategy> strategy_;
};

}  // namespace glint
