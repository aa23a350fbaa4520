#pragma once
// The Vulkan backend's training session: the model, Adam's moments and the densification
// statistics in device memory, the training views (and their masks) there as 8-bit, and the
// step's pieces as shaders: the target (composited on the device; a masked view's weighted
// there), the render and its backward, L1 + D-SSIM with its gradient (weighted by the view's
// mask: masked pixels add nothing), the geometry regularisers (geometry_loss_stages.h),
// flattening, visibility, ADC's statistics, MCMC's regulariser and noise, Adam and the
// finiteness check; per step only scalars (and the sums' per-block partial sums, a few
// hundred floats) come back.
//
// Not yet shaders, done on the host around the device state (said in docs/ARCHITECTURE.md):
// - refinement's decisions and new values, with train/'s code (the CPU's bits): ADC's
//   (clone/split/prune, opacity reset) run densify_step on a light copy of the set (means,
//   scales, rotations, opacities and statistics down, 56 bytes a splat; the new ones up) and
//   the device gathers the SH and Adam's moments into the new rows; MCMC's relocation and
//   growth decide from the opacities and scales (16 bytes a splat down,
//   train/mcmc_edits.h) and edit the device's rows by buffer copies. No float arithmetic
//   on the device there, so the set is the CPU's bit for bit. MCMC's noise, every step, is
//   a shader; only its normals, the CPU's numbers, go up (3 floats a splat);
// - coarse-to-fine targets: the view (and its mask) is downscaled on the host (target_view)
//   and the 8-bit result uploaded.
#include <cstddef>
#include <memory>

#include "glint/backend/training_session.h"

namespace glint::vk {

class Device;

std::unique_ptr<TrainingSession> make_device_training_session(std::shared_ptr<Device> device,
                                                              const TrainingSetup& setup, SplatSet initial);

// Whether `session` is this device session (and not, say, a CPU session).
bool is_device_training_session(const TrainingSession& session);

}  // namespace glint::vk
