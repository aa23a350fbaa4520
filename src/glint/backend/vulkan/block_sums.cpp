#include "glint/backend/vulkan/block_sums.h"

#include <algorithm>
#include <cstdint>

#include "glint/backend/vulkan/shader_interfaces.h"

namespace glint::vk {

void BlockSums::record(Stream& s, const Array<float>& values, std::size_t n) {
  const std::size_t blocks = (n + 4095) / 4096;
  partials_.resize(s.device(), std::max<std::size_t>(blocks, 1));
  host_.assign(blocks, 0.f);
  if (blocks == 0) return;
  const SumPush push{static_cast<std::uint32_t>(n), {0, 0, 0}};
  dispatch<shaders::BlockSum>(s, s.groups_for(blocks * 256, 256), push, in(values, 0, n), out(partials_, 0, blocks));
  s.download(partials_.buffer(), 0, host_.data(), blocks * sizeof(float));
}

double BlockSums::total() const {
  double total = 0;
  for (float v : host_) total += static_cast<double>(v);
  return total;
}

}  // namespace glint::vk
