#pragma once
// The CUDA backend's training session: the model, Adam's moments and the densification
// statistics in device memory, the training images there as 8-bit, and every piece of the
// step that the CPU session runs on the host (loss, backward, Adam, statistics, flatten,
// MCMC's regulariser, the finiteness check) run as kernels; per step only scalars come
// back. The geometry regularisers (normal consistency, depth distortion) run there too, on
// the render's depth, normals and distortion (geometry_loss_stages.h). Compiled by nvcc for
// the device and against the emulator for the tests (emulated/), the same code.
//
// Host round trips (download the arrays, run train/'s CPU code, upload them): ADC's
// clone/split/prune/opacity reset and MCMC's relocation/growth, at the steps their
// schedules act on, and MCMC's position noise, every step it runs.
#include <memory>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/training_session.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

std::unique_ptr<TrainingSession> make_device_training_session(const TrainingSetup& setup, SplatSet initial);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
