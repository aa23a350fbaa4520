#pragma once
// Host entry points of the model's refinement on the device (nvcc, or emulated; kernels in
// kernels/densify_kernels.h, mcmc_kernels.h, refine_rows_kernels.h): ADC's
// clone/split/prune and opacity reset, MCMC's noise, relocation and growth. They edit a
// DeviceModel in place, or build the new rows in `spare` and swap the two; only counts
// come back to the host. Results follow train/densify.cpp and train/mcmc.cpp except that
// random numbers are counter-based (counter_rng.h), so decisions that draw nothing (what
// to clone, split and prune, which splats are dead, how many to add) are the CPU's and the
// draws are the same distributions. On a device the opacity tests (prune, dead) go through
// its expf: a splat within a few ulps of the threshold may be decided otherwise
// (densify_kernels.h).
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/device_model.h"
#include "glint/train/densify.h"
#include "glint/train/mcmc.h"
#include "glint/train/rng.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// The refinement's scratch, kept from call to call (grown, never shrunk).
struct RefineScratch {
  DeviceBuffer<std::uint32_t> flag_a, pos_a, flag_b, pos_b, source, keep, keep_pos, out_rows, samples, times;
  DeviceBuffer<std::uint64_t> weights, before;
  DeviceBuffer<float> logit, log_scale;
  DeviceBuffer<unsigned char> scan;
};

// densify_and_prune: draws one seed from rng when it splits (the children's positions, key
// counter_key(seed, step)). The statistics of every splat are zero afterwards.
DensifyReport device_densify_and_prune(DeviceModel& model, DeviceModel& spare, double extent,
                                       const DensifyOptions& options, bool prune_large, long step, Rng& rng,
                                       RefineScratch& scratch);
// reset_opacity: logits capped at logit(max_opacity), the opacity group's moments zeroed.
void device_reset_opacity(DeviceModel& model, float max_opacity);

// mcmc_add_noise with normals of key (stream: the splat).
void device_mcmc_noise(DeviceModel& model, float means_lr, const McmcOptions& options, std::uint64_t key);
// relocate_dead and grow, with samples of key (stream: the sample). Return how many splats
// they moved or added.
std::size_t device_relocate_dead(DeviceModel& model, const McmcOptions& options, std::uint64_t key,
                                 RefineScratch& scratch);
std::size_t device_grow(DeviceModel& model, DeviceModel& spare, const McmcOptions& options, std::uint64_t key,
                        RefineScratch& scratch);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
