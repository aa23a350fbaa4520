#pragma once
// Host entry point of the photometric loss on the device (nvcc, or emulated; the launches are
// loss_stages.h's, the kernels in kernels/: loss_kernels.h, ssim_tile_kernels.h). The
// training targets are target_stage.h's.
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

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
