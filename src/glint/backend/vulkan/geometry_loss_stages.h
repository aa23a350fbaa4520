#pragma once
// The geometry regularisers (train/geometry_loss.h) on a render in device memory: normal
// consistency (shaders/nc_pixel.comp, then nc_gather.comp once the pixels taking part are
// counted) and the distortion loss (a fixed-order sum and a fill). The per-pixel math is
// train/normal_consistency_math.h's in float (shaders/geometry_math.glsl); the gradients
// stay on the device, only the sums come back (the counts of pixels taking part and the
// losses' block sums). The device training session runs these; so do the tests.
#include <cstddef>

#include "glint/backend/vulkan/block_sums.h"
#include "glint/backend/vulkan/buffer.h"
#include "glint/backend/vulkan/stream.h"
#include "glint/core/camera.h"

namespace glint::vk {

struct GeometryLossBuffers {
  Array<float> valid, terms, contrib;
  BlockSums count_sums, term_sums;
};

struct DeviceNormalConsistency {
  double loss = 0;
  long pixels = 0;            // pixels that take part (the mean's divisor)
  bool has_gradient = false;  // d_normal and d_depth hold it (else nothing to use)
};

// train/geometry_loss.h's normal_consistency on images of camera.width x camera.height
// (normal: 3 floats a pixel, depth and alpha: 1): d_normal and d_depth are resized and, where
// a pixel takes part and the weight is not 0, hold dL/d(normal) and dL/d(depth). Finishes the
// stream once (to read the count and the sum of the terms); the gradients' gather is recorded
// after it, not finished.
DeviceNormalConsistency device_normal_consistency(Stream& s, const Camera& camera, const Array<float>& normal,
                                                  const Array<float>& depth, const Array<float>& alpha,
                                                  float weight, float alpha_threshold, float edge_eps,
                                                  GeometryLossBuffers& b, Array<float>& d_normal,
                                                  Array<float>& d_depth);

// train/geometry_loss.h's distortion_loss on distortion[0, pixels): d_distortion (resized)
// is weight / pixels everywhere. Finishes the stream (to read the sum).
double device_distortion_loss(Stream& s, const Array<float>& distortion, std::size_t pixels, float weight,
                              GeometryLossBuffers& b, Array<float>& d_distortion);

}  // namespace glint::vk
