#pragma once
// The model as kernels read it: flat float arrays of N rows (3, 3, 4, 1, 3 and 45 floats a
// splat), in device memory (or host memory under the emulator).
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct SplatGeometry {
  DeviceSpan<const float> means, log_scales, quats, opacity_logits, sh_dc, sh_rest;
};
static_assert(sizeof(SplatGeometry) == 96);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
