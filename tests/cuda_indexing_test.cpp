// The CUDA backend's index arithmetic at sizes past 2^32 (backend/cuda/indexing.h), without
// allocating them: 64-bit element offsets (SH rows, gradient records, SSIM's planes),
// 64-bit thread indices, spans that keep a 64-bit length, a 64-bit tile-instance total,
// and the one-line refusals of sizes the backend does not index, raised before anything
// is allocated for them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "glint/backend/cuda/device_algorithms.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/launch.h"
#include "glint/backend/cuda/loss_stage.h"
#include "glint/backend/cuda/target_stage.h"
#include "glint/core/error.h"

using namespace glint;
using namespace glint::cuda;

namespace {
constexpr std::uint64_t k2to32 = std::uint64_t{1} << 32;

// The message of the glint::Error that f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(CudaIndexing, ElementOffsetsPast2To32) {
  // SH coefficients of splat 100M (45 floats a row): wrapped in 32 bits past 95M splats
  EXPECT_EQ(row_element(100'000'000, 45, 44), 4'500'000'044u);
  EXPECT_GT(row_element(100'000'000, 45, 44), k2to32);
  // the last float of the 13-float gradient record of instance 400M
  EXPECT_EQ(row_element(400'000'000, 13, 12), 5'200'000'012u);
  // the third SSIM derivative plane of a 1.5G-value image
  EXPECT_EQ(plane_element(2, 1'500'000'000, 7), 3'000'000'007u);
  // a thread of block 20M of 256-thread blocks
  EXPECT_EQ(global_index(20'000'000, 256, 255), 5'120'000'255u);
}

TEST(CudaIndexing, ThreadIndexIs64Bits) {
  auto& ctx = cuda_emu::tls;
  const cuda_emu::ThreadContext saved = ctx;
  ctx.block_idx = dim3(16'777'216);
  ctx.block_dim = dim3(512);
  ctx.thread_idx = dim3(3);
  EXPECT_EQ(thread_index(), 8'589'934'595u);  // 2^33 + 3
  ctx = saved;
}

TEST(CudaIndexing, SpansKeepA64BitLength) {
  static_assert(std::is_same_v<decltype(DeviceSpan<float>::size), std::uint64_t>);
  const DeviceSpan<float> s{nullptr, 5'000'000'000};
  EXPECT_EQ(s.size, 5'000'000'000u);
  EXPECT_EQ(s.as_const().size, 5'000'000'000u);
  // a launch over 5e9 values: 19531250 blocks of 256, well inside CUDA's grid
  EXPECT_EQ(shape_for(5'000'000'000).grid.x, 19'531'250u);
}

TEST(CudaIndexing, TileInstanceTotalIs64Bits) {
  // three splats' tile counts whose total passes 2^32, as the forward sums them
  const std::vector<std::uint64_t> counts = {3'000'000'000, 2'000'000'000, 7, 0};
  std::vector<std::uint64_t> offsets(counts.size());
  DeviceBuffer<unsigned char> scratch;
  exclusive_sum(counts.data(), offsets.data(), counts.size(), scratch);
  EXPECT_EQ(offsets, (std::vector<std::uint64_t>{0, 3'000'000'000, 5'000'000'000, 5'000'000'007}));
  // which the forward refuses, before the key buffers are allocated
  const std::string e = error_of([&] { check_size("tile instances in a frame", offsets.back(), kMaxInstances); });
  EXPECT_EQ(e, "CUDA backend: 5000000007 tile instances in a frame, more than the 4294967295 it indexes");
}

TEST(CudaIndexing, RefusesWhatItDoesNotIndexBeforeAllocating) {
  DeviceBuffer<unsigned char> scratch;
  const long long before = device_memory_use().now.load();
  // null pointers: a refusal that came after touching them would crash
  EXPECT_NE(error_of([&] { sort_pairs(nullptr, nullptr, nullptr, nullptr, k2to32, scratch); }).find("pairs in one sort"),
            std::string::npos);
  EXPECT_NE(error_of([&] { exclusive_sum<std::uint32_t>(nullptr, nullptr, 2 * k2to32, scratch); })
                .find("values in one scan"),
            std::string::npos);
  EXPECT_NE(error_of([] { shape_for(std::uint64_t{1} << 40); }).find("blocks in one launch"), std::string::npos);
  // a 50000 x 50000 RGB loss: 7.5e9 values
  LossBuffers loss;
  const std::uint64_t values = 50000ull * 50000ull * 3;
  const std::string e = error_of([&] {
    device_photometric_loss({nullptr, values}, {nullptr, values}, 50000, 50000, 3, 0.2f, {nullptr, values}, loss);
  });
  EXPECT_EQ(e, "CUDA backend: 7500000000 values in a loss image, more than the 2147483647 it indexes");
  EXPECT_NE(error_of([] { device_target({nullptr, 50000ull * 50000ull * 3}, 50000, 50000, 3, {0.f, 0.f, 0.f},
                                        {nullptr, 50000ull * 50000ull * 3}); })
                .find("pixels in an image"),
            std::string::npos);
  EXPECT_EQ(device_memory_use().now.load(), before);  // nothing was allocated
  EXPECT_EQ(e.find('\n'), std::string::npos);          // one line
}
