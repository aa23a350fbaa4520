#pragma once
// The CPU's training session: the state in host memory, the step's pieces run by the
// host implementations of train/ (loss and SSIM, geometry regularisers, Adam, density
// control) and the CPU rasterizer.
#include <memory>

#include "glint/backend/training_session.h"

namespace glint::cpu {

std::unique_ptr<TrainingSession> make_cpu_training_session(Backend& rasterizer, const TrainingSetup& setup,
                                                           SplatSet initial);

}  // namespace glint::cpu
