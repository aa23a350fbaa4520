#pragma once
// The 3DGS-MCMC strategy (Kheradmand et al. 2024, "3D Gaussian Splatting as Markov Chain
// Monte Carlo"), following its reference code (ubc-vision/3dgs-mcmc) where paper and code
// differ:
// - noise: means += Sigma * z * sigmoid(k * ((1 - o) - t)) * noise_lr * lr_means, z ~ N(0, I),
//   Sigma = R S S^T R^T the splat's covariance, k = 100, t = 0.995 (equivalently
//   sigmoid(-k (o - 0.005)): only nearly transparent splats move much). The code multiplies
//   z by Sigma itself, not by a square root of it; so do we.
// - relocation at refine steps: dead splats (opacity <= 0.005) take the parameters of live
//   ones sampled with probability proportional to opacity (with replacement); a source
//   drawn j times and its j copies all get opacity 1 - (1 - o)^(1/(j+1)) and the scale
//   of the paper's binomial formula (relocation_scale_factor).
// - growth: then min(max_splats, floor(1.05 N)) - N new splats sampled the same way.
// Moments: the reference code zeroes the moments of the sampled sources; we also zero
// those of the relocated destinations (their old moments belong to a dead splat).
#include <cstddef>
#include <cstdint>
#include <span>

#include "glint/train/rng.h"
#include "glint/train/splat_set.h"

namespace glint {

struct McmcOptions {
  long refine_from = 500;     // refine (relocate + grow) at steps > refine_from ...
  long refine_until = 25000;  // ... and < refine_until
  long refine_every = 100;
  float min_opacity = 0.005f;       // dead at or below
  double growth = 0.05;             // fraction added at each refine step
  std::size_t max_splats = 1000000;  // hard cap, never exceeded by growth
  float noise_lr = 5e5f;
  float noise_k = 100.f;
  float noise_t = 0.995f;
  float opacity_reg = 0.01f;  // weight of mean(sigmoid(opacity)) in the loss
  float scale_reg = 0.01f;    // weight of mean(exp(log_scales))
};

inline constexpr int kRelocationMaxN = 51;  // n_max of the reference implementation

// Scale multiplier of the relocation formula for a splat of opacity `opacity` shared by n
// splats: o / sum_{i=1..n} sum_{k=0..i-1} C(i-1, k) (-1)^k o_n^{k+1} / sqrt(k+1), with
// o_n = 1 - (1 - o)^(1/n) the new opacity. n is clamped to [1, kRelocationMaxN]. The
// binomial table is precomputed once; the sum is evaluated in double.
double relocation_opacity(double opacity, int n);
double relocation_scale_factor(double opacity, int n);

// Position noise after an optimizer step (see the file comment). One draw from `rng`
// seeds per-splat streams, so the result does not depend on the thread count.
void mcmc_add_noise(SplatSet& set, float means_lr, const McmcOptions& options, Rng& rng);

// Adds the gradients of opacity_reg * mean(sigmoid(opacity)) + scale_reg * mean(exp(log
// scale)) (means over all values, as the reference code's torch .mean()) to the given
// gradient arrays (N and N*3 floats) and returns the regulariser's value.
double mcmc_regularizer(const GaussianModel& model, const McmcOptions& options, float* opacity_grad,
                        float* log_scale_grad);

struct McmcReport {
  bool refined = false;
  std::size_t relocated = 0;
  std::size_t added = 0;
};

// Relocation and growth when the schedule calls for them (1-based steps, schedule.h).
McmcReport mcmc_step(SplatSet& set, long step, const McmcOptions& options, Rng& rng);

// The pieces. Both return how many splats they moved or added.
std::size_t relocate_dead(SplatSet& set, const McmcOptions& options, Rng& rng);
std::size_t grow(SplatSet& set, const McmcOptions& options, Rng& rng);

}  // namespace glint
