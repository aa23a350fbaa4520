#pragma once
// Host entry points of the photometric loss on the device (nvcc, or emulated; the launches are
// loss_stages.h's, the kernels in kernels/: loss_kernels.h, ssim_tile_kernels.h,
// target_kernel.h, downscale_kernel.h).
#include <array>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/train/loss.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// The loss's scratch, kept from step to step (grown, never shrunk).
struct LossBuffers {
  DeviceBuffer<float> derivs, ssim_map, abs_diff;
  DeviceBuffer<double> partials, sums;
  DeviceBuffer<float> weighted;  // the weighted render (masks)
};

// (1 - lambda) L1 + lambda D-SSIM of render against target ([H,W,C] floats on the device),
// and when grad is not empty d total / d render into it. Two doubles come back.
// weight (masks, train/loss.h): [H,W] per-pixel weights whose sum is weight_sum, the target
// already multiplied by them; empty: none.
LossValue device_photometric_loss(DeviceSpan<const float> render, DeviceSpan<const float> target, int width,
                                  int height, int channels, float lambda, DeviceSpan<float> grad, LossBuffers& buffers,
                                  DeviceSpan<const float> weight = {}, double weight_sum = 0);

// weight ([H,W]) = mask / 255, and their sum (one double comes back); then target
// ([H,W,channels]) multiplied by them in place.
double device_mask_weights(DeviceSpan<const std::uint8_t> mask, DeviceSpan<float> weight, DeviceSpan<float> target,
                           int channels, LossBuffers& buffers);

// out ([H,W,3]) = the 8-bit image src (channels 1 to 4) over background.
void device_target(DeviceSpan<const std::uint8_t> src, int width, int height, int channels,
                   const std::array<float, 3>& background, DeviceSpan<float> out);

// out ([height,width,channels], 8 bits) = src ([src_height,src_width,channels]) area
// downscaled, as io/image_ops.cpp's resize_area.
void device_area_downscale(DeviceSpan<const std::uint8_t> src, int src_width, int src_height, int channels,
                           int width, int height, DeviceSpan<std::uint8_t> out);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
