#pragma once
// Host entry points of the training step's device stages (nvcc, or emulated; kernels in
// kernels/).
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/train/adam_value.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct AdamGroupSpans;

// One Adam step of one parameter group on the device; visible: one byte a row, or empty
// for every row. Adds the values left non-finite to non_finite[0].
void adam_group(const AdamGroupSpans& group, const AdamConsts& consts, DeviceSpan<const std::uint8_t> visible,
                DeviceSpan<std::uint32_t> non_finite);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
