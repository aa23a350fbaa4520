#pragma once
// The CUDA backend's training session: the model, Adam's moments and the densification
// statistics in device memory, the training images there as 8-bit, and every piece of the
// step that the CPU session runs on the host (loss, backward, Adam, statistics, flatten,
// MCMC's regulariser, the finiteness check) run as kernels; per step only scalars come
// back. The geometry regularisers (normal consistency, depth distortion) run there too, on
// the render's depth, normals and distortion (geometry_loss_stages.h). Compiled by nvcc for
// the device and against the emulator for the tests (emulated/), the same code.
//
// ADC's clone/split/prune and opacity reset, MCMC's noise, relocation and growth and
// coarse-to-fine's downscaling run on the device too (refine_stages.h, target_stage.h), with
// counter-based random numbers: the decisions are the CPU's (on a device, but for splats
// within a few ulps of an opacity threshold: refine_stages.h), the random draws differ from
// the CPU's sequential generator but follow the same distributions. With
// refine_on_host the session instead downloads the arrays at the steps those schedules act
// on, runs train/'s CPU code on them and uploads them again: the CPU session's bits. Views
// past the device image budget are uploaded (and downscaled on the host) by the step that
// needs them.
#include <cstddef>
#include <memory>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/training_session.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct DeviceSessionOptions {
  bool refine_on_host = false;  // densification and MCMC's refinement through host round trips
};

std::unique_ptr<TrainingSession> make_device_training_session(const TrainingSetup& setup, SplatSet initial,
                                                              const DeviceSessionOptions& options = {});

// How often a device session has downloaded the model's arrays, run host code on them and
// uploaded them again (state() alone, a download, does not count). Throws for other sessions.
std::size_t model_round_trips(const TrainingSession& session);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
