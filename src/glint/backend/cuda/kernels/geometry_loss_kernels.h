#pragma once
// The geometry regularisers on the render (train/geometry_loss.h), one thread a pixel, with
// the CPU's per-pixel math (train/normal_consistency_math.h). Normal consistency writes
// each pixel's depth gradients for its four neighbours into slots of its own, and a second
// kernel gathers every pixel's from its neighbours in the order the CPU's row-major loop
// adds them: no float atomics. Terms are summed in a fixed order by the caller
// (loss_stages.h sum_into); the count of pixels that take part is an integer atomic.
#include <cstdint>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/train/normal_consistency_math.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct NcImage {
  std::int32_t width, height;
  float alpha_threshold;
  float edge_eps = 0.f;  // normal_consistency_edge's eps (0: no pixel skipped)
};
static_assert(sizeof(NcImage) == 16);

GLINT_HD inline bool nc_ok_at(const NcImage& im, DeviceSpan<const float> alpha, DeviceSpan<const float> depth, int x,
                              int y) {
  const auto i = static_cast<std::uint32_t>(y * im.width + x);
  return normal_consistency_ok(alpha[i], depth[i], im.alpha_threshold);
}

// valid[p]: interior, and it and its four neighbours pass normal_consistency_ok; count[0]
// += the number of such pixels.
GLINT_KERNEL void nc_valid_kernel(NcImage im, DeviceSpan<const float> alpha, DeviceSpan<const float> depth,
                                  DeviceSpan<std::uint8_t> valid, DeviceSpan<std::uint32_t> count) {
  const std::uint64_t p = thread_index();
  if (p >= valid.size) return;
  const int x = static_cast<int>(p % static_cast<std::uint32_t>(im.width));
  const int y = static_cast<int>(p / static_cast<std::uint32_t>(im.width));
  const bool v = x > 0 && y > 0 && x < im.width - 1 && y < im.height - 1 && nc_ok_at(im, alpha, depth, x, y) &&
                 nc_ok_at(im, alpha, depth, x - 1, y) && nc_ok_at(im, alpha, depth, x + 1, y) &&
                 nc_ok_at(im, alpha, depth, x, y - 1) && nc_ok_at(im, alpha, depth, x, y + 1);
  valid[p] = v ? 1 : 0;
  if (v) atomicAdd(&count.data[0], 1u);
}

// Each valid pixel's term (else 0, as on a depth edge), its dL/d(normal) times `scale` (weight / count), and
// its scaled depth gradients for its right, left, lower and upper neighbours in
// contrib[4p .. 4p+3] (as the CPU rounds them to float before adding).
GLINT_KERNEL void nc_pixel_kernel(NcCamera cam, NcImage im, DeviceSpan<const float> normal,
                                  DeviceSpan<const float> depth, DeviceSpan<const std::uint8_t> valid, double scale,
                                  DeviceSpan<double> terms, DeviceSpan<float> d_normal, DeviceSpan<float> contrib) {
  const std::uint64_t p = thread_index();
  if (p >= valid.size) return;
  for (std::uint32_t k = 0; k < 3; ++k) d_normal[3 * p + k] = 0.f;
  for (std::uint32_t k = 0; k < 4; ++k) contrib[4 * p + k] = 0.f;
  terms[p] = 0.0;
  if (!valid[p]) return;
  const auto w = static_cast<std::uint32_t>(im.width);
  const int x = static_cast<int>(p % w), y = static_cast<int>(p / w);
  NcPixel px;
  const auto z = [&](std::uint64_t i) { return static_cast<double>(depth[i]); };
  const Vec3f n = load3(normal.data, p);
  const Vec3d N{n.x, n.y, n.z};
  if (normal_consistency_edge(z(p), z(p + 1), z(p - 1), z(p + w), z(p - w), im.edge_eps)) return;
  if (!normal_consistency_pixel(cam, x, y, z(p + 1), z(p - 1), z(p + w), z(p - w), N, px)) return;
  terms[p] = px.term;
  d_normal[3 * p] = static_cast<float>(scale * px.g_N.x);
  d_normal[3 * p + 1] = static_cast<float>(scale * px.g_N.y);
  d_normal[3 * p + 2] = static_cast<float>(scale * px.g_N.z);
  for (std::uint32_t k = 0; k < 4; ++k) contrib[4 * p + k] = static_cast<float>(scale * px.g_depth[k]);
}

// d_depth[p]: the contributions of p's neighbours, in the order of the CPU's row-major loop
// over the pixels that make them: the one above (its lower slot), left (its right slot),
// right (its left slot), below (its upper slot).
GLINT_KERNEL void nc_gather_kernel(NcImage im, DeviceSpan<const float> contrib, DeviceSpan<float> d_depth) {
  const std::uint64_t p = thread_index();
  if (p >= d_depth.size) return;
  const auto w = static_cast<std::uint32_t>(im.width);
  const int x = static_cast<int>(p % w), y = static_cast<int>(p / w);
  float d = 0.f;
  if (y > 0) d += contrib[4 * (p - w) + 2];
  if (x > 0) d += contrib[4 * (p - 1) + 0];
  if (x < im.width - 1) d += contrib[4 * (p + 1) + 1];
  if (y < im.height - 1) d += contrib[4 * (p + w) + 3];
  d_depth[p] = d;
}

// The distortion loss's gradient: the same value, weight / pixels, everywhere.
GLINT_KERNEL void fill_kernel(DeviceSpan<float> out, float value) {
  const std::uint64_t i = thread_index();
  if (i < out.size) out[i] = value;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
