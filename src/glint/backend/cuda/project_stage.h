#pragma once
// Host entry points of the CUDA stages (their .cu files are built with GLINT_CUDA).
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/kernels/project_kernel.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// Projects every splat of `geometry` for `view` into `out` (one per splat, on the device).
void project_stage(const render::ViewT<float>& view, const SplatGeometry& geometry, int sh_degree, bool antialiased,
                   DeviceSpan<ProjectedSplat> out);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
