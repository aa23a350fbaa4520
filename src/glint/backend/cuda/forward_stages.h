#pragma once
// The forward's stages on the device, in order: project -> count and prefix sum -> tile
// keys -> 64-bit key radix sort -> tile ranges -> blend. Every kernel is one of kernels/;
// the prefix sum and the sort are device_algorithms.h's (CUB's under nvcc). Compiled by
// nvcc for the device and by the host compiler against the emulator (emulated/), where
// the tests run the whole stage sequence.
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/blend_aovs.h"
#include "glint/backend/cuda/blend_image.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/kernels/blend_backward_kernel.h"
#include "glint/backend/cuda/projected_splat.h"
#include "glint/backend/cuda/splat_geometry.h"
#include "glint/render/view.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// A frame's device state, kept from frame to frame so that steady rendering allocates
// nothing.
struct DeviceFrame {
  DeviceBuffer<ProjectedSplat> splats;
  // per splat (+ 1): tile counts, their exclusive sum; after the keys, counts holds the keys
  // each splat wrote (tile_list_kernels.h)
  DeviceBuffer<std::uint64_t> counts, offsets;
  DeviceBuffer<std::uint32_t> key_mismatch;  // [1]: keys dropped or slots filled (zero: the two tile walks agree)
  DeviceBuffer<std::uint64_t> keys, sorted_keys;
  DeviceBuffer<std::uint32_t> splat_of_slot, slots, sorted_slot, sorted_splat, ranges;
  DeviceBuffer<unsigned char> scratch;  // CUB's temporary storage
  DeviceBuffer<float> rgb, alpha, t_final;
  DeviceBuffer<std::uint32_t> last;  // per pixel: the end of its blended steps
  DeviceBuffer<std::int32_t> radii;  // per splat: RenderOutput::radii
  DeviceBuffer<float> records;      // backward: one per instance, splat-major
  // the optional outputs (BlendAovs' spans point into them; sized only when drawn)
  DeviceBuffer<float> depth, median, normal, distortion, count, depth_sum, dist_r, dist_z0;
  DeviceBuffer<std::uint32_t> median_at;
  BlendAovs aovs{};  // of the last forward
  render::ViewT<float> view{};
  BlendImage image{};
  int sh_degree = 0;
  bool antialiased = false;
  std::uint32_t instances = 0, tiles = 0;  // instances <= kMaxInstances (refused beyond)
};

// Gradients in device memory, laid out like the model (mean2d: [N,2] pixels).
struct DeviceGrads {
  DeviceBuffer<float> means, log_scales, quats, opacity_logits, sh_dc, sh_rest, mean2d;
};

// Renders `geometry` (on the device) for `view` into frame.rgb and frame.alpha, each
// splat's radius into frame.radii, and the optional outputs whose bits (kAovDepth, ...) are
// in aov_flags into frame.depth, frame.median, frame.normal, frame.distortion and
// frame.count; stop_at_median (with the median): RenderSettings::median_depth_only.
// Throws glint::Error, before allocating for them, where the splats, the pixels or the
// frame's tile instances are more than the backend indexes (indexing.h).
void forward_frame(const render::ViewT<float>& view, const SplatGeometry& geometry, int sh_degree, bool antialiased,
                   const float background[3], DeviceFrame& frame, std::uint32_t aov_flags = 0,
                   bool stop_at_median = false);

// The keys the last forward dropped or filled because its two walks over each splat's tiles
// disagreed (tile_list_kernels.h); zero unless nvcc compiled them to different decisions.
// One value comes back. Debug builds check it in forward_frame.
std::uint32_t key_mismatches(const DeviceFrame& frame);

// The backward of the frame forward_frame left, for the upstream gradients in `in`
// (d_rgb [H*W*3] required, the others empty for zero; a gradient of an output the forward
// did not draw is ignored, callers check), into grads (resized to the model).
void backward_frame(const SplatGeometry& geometry, DeviceFrame& frame, const BlendGradIn& in, DeviceGrads& grads);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
