#pragma once
// Fixed-order sums of float arrays on the device (shaders/block_sum.comp): one partial sum
// per 4096 values comes back and the host adds them in double, in order, so that the same
// values give the same bits run after run whatever the subgroup size.
#include <cstddef>
#include <vector>

#include "glint/backend/vulkan/buffer.h"
#include "glint/backend/vulkan/stream.h"

namespace glint::vk {

class BlockSums {
 public:
  // Records the block sums of values[0, n) and their download; total() reads them after the
  // stream's finish.
  void record(Stream& s, const Array<float>& values, std::size_t n);
  double total() const;

 private:
  Array<float> partials_;
  std::vector<float> host_;
};

}  // namespace glint::vk
