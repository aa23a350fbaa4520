// The project stage on the device: the kernel of kernels/project_kernel.h launched over
// one thread per splat. Compiled by nvcc only (GLINT_CUDA).
#include "glint/backend/cuda/project_stage.h"

#include "glint/backend/cuda/launch.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

void project_stage(const render::ViewT<float>& view, const SplatGeometry& geometry, int sh_degree, bool antialiased,
                   DeviceSpan<ProjectedSplat> out) {
  launch(project_kernel, shape_for(out.size), view, geometry, static_cast<std::int32_t>(sh_degree),
         static_cast<std::uint32_t>(antialiased), out);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
