#pragma once
// The 3DGS training loop: one step = pick a view, render, loss, backward, densification
// statistics, Adam, then density control (ADC or MCMC). Everything random comes from one
// RNG saved in checkpoints and the view order is a pure function of (seed, epoch), so a
// resumed run is bit-identical to an uninterrupted one.
#include <cstdint>
#include <string>

#include "glint/backend/backend.h"
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
  double ms_backward = 0;  // rasterizer backward (+ MCMC regulariser)
  double ms_stats = 0;     // visibility, densification statistics
  double ms_optimizer = 0; // Adam
  double ms_densify = 0;   // densification / MCMC relocation, finiteness check
};

class Trainer {
 public:
  // `cache` serves the images of dataset.train.
  Trainer(const Dataset& dataset, const TrainOptions& options, Backend& backend, ImageCache& cache);

  // Continues from a checkpoint; throws glint::Error naming `what` when it was written
  // with other options.
  void restore(TrainCheckpoint checkpoint, const std::string& what);
  TrainCheckpoint checkpoint() const;

  // Runs step current_step()+1. Throws glint::Error naming the step and the tensor when
  // the loss or a parameter stops being finite (the model then holds the bad values).
  StepResult step();

  long current_step() const { return step_; }
  const GaussianModel& model() const { return set_.model; }
  int active_sh_degree() const;
  const std::array<float, 3>& background() const { return dataset_.background; }

 private:
  std::size_t view_for_step(long step) const;
  // Throws when the loss or a parameter is not finite. adam_bad: Adam::step's answer for
  // the values it wrote; all: read every parameter (something else changed them too, or
  // no check has read them yet).
  void check_finite(long step, double loss, int adam_bad, bool all);

  const Dataset& dataset_;
  TrainOptions options_;
  Backend& backend_;
  ImageCache& cache_;
  SplatSet set_;
  Rng rng_;
  long step_ = 0;
  bool checked_ = false;  // a full finiteness check has read the parameters since they were loaded
  ModelGrad grad_;
  // per-step scratch kept across steps (no allocation in the steady state)
  ImageF target_;  // the step's image over its background
  // per training view: its target's SSIM blurs at full resolution over the dataset's
  // background, for the first views that fit in ssim_cache_mb (fill_ssim_targets)
  std::vector<SsimTargetStats<float>> ssim_stats_;
  ImageF d_rgb_;
  RenderOutput out_;  // the step's render, its images reused by the next step
  std::vector<float> radii_;
  std::vector<std::uint8_t> visible_;
  ExpLrSchedule means_lr_;

  // Blurs every kept view's target at the start, in parallel over views: steps then cost
  // the same from the first (filling at a view's first visit would make that step pay for
  // the blurs and the first touch of their memory), and a broken image stops the run at once.
  void fill_ssim_targets();
  // The view's kept SSIM blurs for this step's target, or null (fixed_target false: the
  // target is downscaled or over a random background; or the view is past the budget).
  SsimTargetStats<float>* ssim_stats_for(std::size_t view, bool fixed_target, const ImageF& target);
};

}  // namespace glint
