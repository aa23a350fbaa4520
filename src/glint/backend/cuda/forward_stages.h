#pragma once
// The forward's stages on the device, in order (nvcc only): project -> count and prefix
// sum -> tile keys -> 64-bit key radix sort -> tile ranges -> blend. Every kernel is one
// of kernels/; the prefix sum and the sort are CUB's. The same kernels run emulated in
// tests/cuda_emulation_test.cpp.
#include <cstdint>

#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/projected_splat.h"
#include "glint/backend/cuda/splat_geometry.h"
#include "glint/render/view.h"

namespace glint::cuda {

// A frame's device state, kept from frame to frame so that steady rendering allocates
// nothing.
struct DeviceFrame {
  DeviceBuffer<ProjectedSplat> splats;
  DeviceBuffer<std::uint32_t> counts, offsets;
  DeviceBuffer<std::uint64_t> keys, sorted_keys;
  DeviceBuffer<std::uint32_t> values, sorted_splat, ranges;
  DeviceBuffer<unsigned char> scratch;  // CUB's temporary storage
  DeviceBuffer<float> rgb, alpha;
  std::uint32_t instances = 0;
};

// Renders `geometry` (on the device) for `view` into frame.rgb and frame.alpha.
void forward_frame(const render::ViewT<float>& view, const SplatGeometry& geometry, int sh_degree, bool antialiased,
                   const float background[3], DeviceFrame& frame);

}  // namespace glint::cuda
