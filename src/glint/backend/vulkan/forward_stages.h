#pragma once
// The rasterizer's stages on a Vulkan device, in the CUDA backend's order: project -> count
// and prefix sum -> tile keys -> 64-bit key radix sort -> tile ranges -> blend; and the
// backward: blend backward (per-instance records) -> per-splat sums and VJPs. Every stage is
// a shader of shaders/ run through typed dispatch (shader_interfaces.h). Per-splat stages
// run over chunks of splats whose bindings start at the chunk (splat_chunk), so that no
// binding is larger than the device's maxStorageBufferRange however large the model.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "glint/backend/vulkan/buffer.h"
#include "glint/backend/vulkan/shader_types.h"
#include "glint/backend/vulkan/stream.h"
#include "glint/core/gaussians.h"
#include "glint/render/view.h"

namespace glint::vk {

// The model in device memory: flat float arrays of N rows (3, 3, 4, 1, 3 and 45 floats).
struct DeviceModel {
  Array<float> means, log_scales, quats, opacity, sh_dc, sh_rest;
  std::size_t n = 0;
  void upload(Stream& s, const GaussianModel& m);
};

// The block sums of each level of a prefix sum (1024 values a block: six levels reach 2^60).
using ScanSums = std::array<Array<std::uint32_t>, 6>;

// A frame's device state, kept from frame to frame so that steady rendering allocates
// nothing new.
struct DeviceFrame {
  Array<ProjectedSplat> splats;
  Array<std::uint32_t> offsets;  // tile counts, then their exclusive prefix sum (n + 1)
  Array<std::int32_t> radii;
  Array<std::uint32_t> key_lo[2], key_hi[2], slots[2];  // the sort's ping-pong pairs
  Array<std::uint32_t> splat_of_slot, sorted_splat, ranges, hist;
  ScanSums scan_sums;
  Array<float> rgb, alpha, t_final;
  Array<std::uint32_t> last, median_at;
  Array<float> depth, depth_sum, median, normal, distortion, dist_r, dist_z0, count;
  Array<float> records;
  Array<float> none_f;  // bound where an output is not drawn (never written or read)
  Array<std::uint32_t> none_u;
  int sorted = 0;  // which of the ping-pong pairs holds the sorted keys
  ViewParams view{};
  int width = 0, height = 0, tiles_x = 0, tiles_y = 0, sh_degree = 0;
  bool antialiased = false;
  std::uint32_t flags = 0, stop_at_median = 0;
  float background[3] = {0, 0, 0};
  std::uint32_t instances = 0;
};

// Upstream gradients and the model's gradients in device memory.
struct DeviceGrads {
  Array<float> d_rgb, d_alpha, d_depth, d_median, d_normal, d_distortion;
  std::uint32_t grad_flags = 0;  // GLINT_GRAD_* of the d_ arrays given
  Array<float> means, log_scales, quats, opacity, sh_dc, sh_rest, mean2d;
};

// Splats a per-splat dispatch covers: a multiple of 64 (so every chunk's bindings start at a
// multiple of 256 bytes) whose largest per-splat array (45 floats of SH) fits the device's
// binding range.
std::size_t splat_chunk(const Device& device);

// Exclusive prefix sum of data[0, n) in place (n <= data.size()).
void exclusive_scan(Stream& s, Array<std::uint32_t>& data, std::size_t n, ScanSums& sums, std::size_t level = 0);

// Stable LSD radix sort of m (key_hi << 32 | key_lo, value) pairs in f.key_*[0] / slots[0]
// by their low `lo_bits` and high `hi_bits` bits (the rest must be 0); f.sorted says which
// pair holds the result.
void sort_keys(Stream& s, DeviceFrame& f, std::uint32_t m, unsigned lo_bits, unsigned hi_bits);

// Renders the model for `view` into f (see DeviceFrame). The stream is finished once inside
// (to read the number of tile instances) and holds the blend when this returns: the caller
// records its downloads and finishes it.
void forward_frame(Stream& s, const DeviceModel& model, const render::ViewT<float>& view, int sh_degree,
                   bool antialiased, const float background[3], DeviceFrame& f, std::uint32_t aov_flags,
                   bool stop_at_median);

// The backward of the frame forward_frame left, for the upstream gradients in g (d_rgb
// required, the others as g.grad_flags says), into g's parameter gradients. Recorded, not
// finished.
void backward_frame(Stream& s, const DeviceModel& model, DeviceFrame& f, DeviceGrads& g);

}  // namespace glint::vk
