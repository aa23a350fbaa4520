#include "glint/backend/vulkan/geometry_loss_stages.h"

#include <bit>
#include <cstdint>

#include "glint/backend/vulkan/shader_interfaces.h"
#include "glint/core/error.h"

namespace glint::vk {

DeviceNormalConsistency device_normal_consistency(Stream& s, const Camera& camera, const Array<float>& normal,
                                                  const Array<float>& depth, const Array<float>& alpha,
                                                  float weight, float alpha_threshold, float edge_eps,
                                                  GeometryLossBuffers& b, Array<float>& d_normal,
                                                  Array<float>& d_depth) {
  DeviceNormalConsistency r;
  const std::size_t px = static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height);
  if (px == 0) return r;
  if (normal.size() < 3 * px || depth.size() < px || alpha.size() < px)
    throw Error("Vulkan training", "normal consistency on images smaller than the camera's");
  Device& d = s.device();
  NcPush p{};
  for (int k = 0; k < 9; ++k) p.R[k] = static_cast<float>(camera.R.m[k]);
  p.fx = static_cast<float>(camera.fx);
  p.fy = static_cast<float>(camera.fy);
  p.cx = static_cast<float>(camera.cx);
  p.cy = static_cast<float>(camera.cy);
  p.width = camera.width;
  p.height = camera.height;
  p.count = static_cast<std::uint32_t>(px);
  p.alpha_threshold = alpha_threshold;
  p.edge_eps = edge_eps;
  b.valid.resize(d, px);
  b.terms.resize(d, px);
  b.contrib.resize(d, 4 * px);
  d_normal.resize(d, 3 * px);
  d_depth.resize(d, px);
  const Groups g = s.groups_for(px, 256);
  dispatch<shaders::NcPixel>(s, g, p, in(normal, 0, 3 * px), in(depth, 0, px), in(alpha, 0, px),
                             out(b.valid, 0, px), out(b.terms, 0, px), out(d_normal, 0, 3 * px),
                             out(b.contrib, 0, 4 * px));
  b.count_sums.record(s, b.valid, px);
  b.term_sums.record(s, b.terms, px);
  s.finish();
  r.pixels = static_cast<long>(b.count_sums.total());  // whole numbers: exact in float blocks and double
  if (r.pixels == 0 || weight == 0) return r;
  // geometry_loss.cpp's scale, in double; the gradients take it as a float
  const double scale = weight / static_cast<double>(r.pixels);
  p.scale = static_cast<float>(scale);
  dispatch<shaders::NcGather>(s, g, p, in(b.contrib, 0, 4 * px), out(d_normal, 0, 3 * px), out(d_depth, 0, px));
  r.loss = scale * b.term_sums.total();
  r.has_gradient = true;
  return r;
}

double device_distortion_loss(Stream& s, const Array<float>& distortion, std::size_t pixels, float weight,
                              GeometryLossBuffers& b, Array<float>& d_distortion) {
  d_distortion.resize(s.device(), pixels);
  if (pixels == 0) return 0;
  if (distortion.size() < pixels) throw Error("Vulkan training", "the distortion loss on an image too small");
  const double scale = weight / static_cast<double>(pixels);
  // the gradient is one value everywhere (geometry_loss.cpp): the fill command writes its bits
  s.fill(d_distortion.buffer(), 0, pixels * sizeof(float), std::bit_cast<std::uint32_t>(static_cast<float>(scale)));
  b.term_sums.record(s, distortion, pixels);
  s.finish();
  return scale * b.term_sums.total();
}

}  // namespace glint::vk
