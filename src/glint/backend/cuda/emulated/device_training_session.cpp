// device_training_session.cu compiled by the host compiler against the emulator
// (cuda_api.h): the tests train with the same session code the device runs.
#include "glint/backend/cuda/device_training_session.cu"
