#include "glint/backend/cuda/train_stages.h"

#include "glint/backend/cuda/kernels/adam_kernel.h"
#include "glint/backend/cuda/launch.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

void adam_group(const AdamGroupSpans& group, const AdamConsts& consts, DeviceSpan<const std::uint8_t> visible,
                DeviceSpan<std::uint32_t> non_finite) {
  launch(adam_kernel, shape_for(group.params.size), group, consts, visible, non_finite);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
