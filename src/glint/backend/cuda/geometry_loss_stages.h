#pragma once
// The geometry regularisers' launches in order (kernels/geometry_loss_kernels.h) on a
// frame's depth, normal, alpha and distortion, over buffers the caller owns: the device
// training session's normal_consistency and distortion, and the emulated tests, run this
// sequence. One scalar comes back from each (normal consistency: its pixel count, then
// the loss).
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/forward_stages.h"
#include "glint/backend/cuda/kernels/geometry_loss_kernels.h"
#include "glint/backend/cuda/launch.h"
#include "glint/backend/cuda/loss_stages.h"
#include "glint/core/camera.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct GeometryLossBuffers {
  DeviceBuffer<std::uint8_t> valid;
  DeviceBuffer<std::uint32_t> count;
  DeviceBuffer<double> terms, partials, sums;
  DeviceBuffer<float> contrib;
  DeviceBuffer<float> d_normal, d_depth, d_distortion;  // the upstream gradients for the backward
};

struct DeviceNormalConsistency {
  double loss = 0;
  long pixels = 0;
  bool has_gradient = false;  // d_normal and d_depth hold it (else it is zero)
};

inline double sum_terms(DeviceSpan<const double> terms, GeometryLossBuffers& b) {
  b.partials.resize(2 * std::size_t(loss_sum_blocks(terms.size)));
  b.sums.resize(2);
  clear(b.sums);
  sum_into(terms, b.partials.span(), b.sums.span(), 0);
  return download_value(b.sums.data());
}

// train/geometry_loss.h's normal_consistency on the frame (drawn with depth and normals).
inline DeviceNormalConsistency device_normal_consistency(const Camera& camera, const DeviceFrame& f, float weight,
                                                         GeometryLossBuffers& b, float alpha_threshold = 0.5f,
                                                         float edge_eps = 0.f) {
  DeviceNormalConsistency r;
  const std::size_t pixels = f.alpha.size();
  if (pixels == 0) return r;
  const NcImage im{f.image.width, f.image.height, alpha_threshold, edge_eps};
  b.valid.resize(pixels);
  b.count.resize(1);
  clear(b.count);
  launch(nc_valid_kernel, shape_for(pixels), im, f.alpha.cspan(), f.depth.cspan(), b.valid.span(), b.count.span());
  r.pixels = static_cast<long>(download_value(b.count.data()));
  if (r.pixels == 0 || weight == 0) return r;
  const double scale = weight / static_cast<double>(r.pixels);
  b.terms.resize(pixels);
  b.d_normal.resize(3 * pixels);
  b.contrib.resize(4 * pixels);
  b.d_depth.resize(pixels);
  const NcCamera cam{camera.R, camera.fx, camera.fy, camera.cx, camera.cy};
  launch(nc_pixel_kernel, shape_for(pixels), cam, im, f.normal.cspan(), f.depth.cspan(), b.valid.cspan(), scale,
         b.terms.span(), b.d_normal.span(), b.contrib.span());
  launch(nc_gather_kernel, shape_for(pixels), im, b.contrib.cspan(), b.d_depth.span());
  check_launches("normal consistency");
  r.loss = scale * sum_terms(b.terms.cspan(), b);
  r.has_gradient = true;
  return r;
}

// train/geometry_loss.h's distortion_loss on the frame's distortion; b.d_distortion its gradient.
inline double device_distortion_loss(const DeviceFrame& f, float weight, GeometryLossBuffers& b) {
  const std::size_t pixels = f.distortion.size();
  if (pixels == 0) return 0;
  const double scale = weight / static_cast<double>(pixels);
  b.partials.resize(2 * std::size_t(loss_sum_blocks(pixels)));
  b.sums.resize(2);
  clear(b.sums);
  sum_into(f.distortion.cspan(), b.partials.span(), b.sums.span(), 0);
  b.d_distortion.resize(pixels);
  launch(fill_kernel, shape_for(pixels), b.d_distortion.span(), static_cast<float>(scale));
  check_launches("distortion loss");
  return scale * download_value(b.sums.data());
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
