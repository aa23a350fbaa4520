// target_stage.cu compiled by the host compiler against the emulator (cuda_api.h), so that
// the test suite runs the same stage code the device does (cuda_namespace.h keeps the two
// copies apart).
#include "glint/backend/cuda/target_stage.cu"
