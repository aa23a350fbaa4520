#pragma once
// What a backend runs for every training step, over tensors it owns: the model's
// parameters, Adam's moments, the densification statistics and its copy of the training
// images. The host trainer (train/trainer.h) keeps the policy (which view, schedules,
// when to densify, checkpoints, evaluation) and calls these in order:
//
//   set_target -> render -> photometric_loss [-> normal_consistency] [-> distortion]
//   -> backward [-> flatten] -> visibility -> (strategy: densify statistics or MCMC
//   regulariser) -> adam -> (strategy: densify / relocate / noise) -> check_finite
//
// Only scalars come back per step (losses, counts, the failing group); the whole state
// crosses only on load() and state() (checkpoints, evaluation, writing files).
#include <array>
#include <cstddef>
#include <memory>

#include "glint/backend/backend.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/train/densify.h"
#include "glint/train/loss.h"
#include "glint/train/mcmc.h"
#include "glint/train/rng.h"
#include "glint/train/splat_set.h"

namespace glint {

struct TrainingSetup {
  const Dataset* dataset = nullptr;
  ImageCache* images = nullptr;  // serves dataset->train
  LossOptions loss;
  bool random_background = false;  // targets change every step: nothing kept per view
  // Memory for the views' SSIM blurs kept across steps (the same bits either way).
  std::size_t ssim_cache_mb = 1024;
  // Memory for the training images kept in device memory as 8-bit (CUDA); past it each
  // step uploads its view.
  std::size_t device_images_mb = 4096;
};

class TrainingSession {
 public:
  virtual ~TrainingSession() = default;

  // The whole state in and out.
  virtual void load(SplatSet set) = 0;
  virtual const SplatSet& state() = 0;  // valid until the next call that changes the state
  virtual std::size_t size() const = 0;
  // The SH degree files written from the model keep (the highest used so far).
  virtual void set_sh_degree(int degree) = 0;

  // The step's target: training view `view` composited over `background`, at 1/factor of
  // its resolution (coarse-to-fine). Returns the camera it is to be rendered with.
  virtual Camera set_target(std::size_t view, int factor, const std::array<float, 3>& background) = 0;
  // Forward render of the model for the target's camera.
  virtual void render(const RenderSettings& settings) = 0;
  // (1 - lambda) L1 + lambda D-SSIM against the target, and its gradient.
  virtual double photometric_loss() = 0;
  // Geometry regularisers on the render (train/geometry_loss.h); need the render's normal,
  // depth and alpha, or its distortion. edge_eps: normal consistency's depth-edge test
  // (--normal-edge; 0: off).
  virtual double normal_consistency(float weight, float edge_eps) = 0;
  virtual double distortion(float weight) = 0;
  // The rasterizer's backward of every loss above.
  virtual void backward() = 0;
  virtual double flatten(float weight) = 0;
  // Splats the render drew (radius > 0), recorded for the statistics and selective Adam.
  virtual std::size_t visibility() = 0;

  // Adam on every group; selective: only the splats the render drew. Returns the first
  // group left with a non-finite value, or -1.
  virtual int adam(const GroupRates& rates, bool selective, int sh_degree) = 0;

  // Set changes and their statistics, applied to every tensor that follows a splat.
  virtual void accumulate_densify_stats(long step, const DensifyOptions& options) = 0;
  virtual DensifyReport densify(long step, double extent, const DensifyOptions& options, Rng& rng) = 0;
  virtual double mcmc_regularizer(const McmcOptions& options) = 0;
  virtual void mcmc_noise(float means_lr, const McmcOptions& options, Rng& rng) = 0;
  virtual McmcReport mcmc_refine(long step, const McmcOptions& options, Rng& rng) = 0;

  // The first parameter group holding a non-finite value, or -1. all = false may trust
  // Adam's own check for values nothing else wrote since the last full check.
  virtual int first_non_finite_group(bool all) = 0;
};

}  // namespace glint
