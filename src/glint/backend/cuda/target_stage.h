#pragma once
// Host entry points of the training targets on the device (nvcc, or emulated; kernels in
// kernels/target_kernel.h and kernels/downscale_kernel.h). Built without contraction
// (--fmad=false): the same bits as the CPU's composite_float_into and resize_area.
#include <array>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// out ([H,W,3]) = the 8-bit image src (channels 1 to 4) over background.
void device_target(DeviceSpan<const std::uint8_t> src, int width, int height, int channels,
                   const std::array<float, 3>& background, DeviceSpan<float> out);

// out ([height,width,channels], 8 bits) = src ([src_height,src_width,channels]) area
// downscaled, as io/image_ops.cpp's resize_area.
void device_area_downscale(DeviceSpan<const std::uint8_t> src, int src_width, int src_height, int channels,
                           int width, int height, DeviceSpan<std::uint8_t> out);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
