// The Vulkan backend's device-wide primitives on both CPU drivers under the validation layer:
// the exclusive prefix sum (one to three levels) against std::exclusive_scan and the 64-bit
// key radix sort against std::stable_sort (stability included: equal keys keep their order),
// bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/forward_stages.h"
#include "vulkan_test_support.h"

using namespace glint;

namespace {

class VulkanStages : public test::VulkanStreamTest {
 protected:
};

}  // namespace

TEST_P(VulkanStages, PrefixSumMatchesTheStandardLibrary) {
  std::mt19937 rng(5);
  for (std::size_t n : {std::size_t(1), std::size_t(4), std::size_t(257), std::size_t(1024), std::size_t(1025),
                        std::size_t(4099), std::size_t(1100000)}) {
    SCOPED_TRACE(n);
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = rng() % 40;
    vk::Array<std::uint32_t> a;
    a.resize(*device, n);
    vk::ScanSums sums;
    stream->upload(a.buffer(), 0, v.data(), n * 4);
    vk::exclusive_scan(*stream, a, n, sums);
    std::vector<std::uint32_t> got(n);
    stream->download(a.buffer(), 0, got.data(), n * 4);
    stream->finish();
    std::vector<std::uint32_t> want(n);
    std::exclusive_scan(v.begin(), v.end(), want.begin(), 0u);
    std::size_t first_bad = n;
    for (std::size_t i = 0; i < n && first_bad == n; ++i)
      if (got[i] != want[i]) first_bad = i;
    EXPECT_EQ(first_bad, n) << "first wrong value at " << first_bad << ": " << got[std::min(first_bad, n - 1)]
                            << " vs " << want[std::min(first_bad, n - 1)];
  }
}

TEST_P(VulkanStages, RadixSortIsStableAndMatchesTheStandardLibrary) {
  std::mt19937 rng(9);
  for (std::uint32_t m : {1u, 7u, 4096u, 4097u, 70000u}) {
    SCOPED_TRACE(m);
    std::vector<std::uint32_t> lo(m), hi(m), val(m);
    for (std::uint32_t i = 0; i < m; ++i) {
      lo[i] = rng() & 0x7fffffffu;
      if (i % 3 == 0) lo[i] = 12345;  // many equal keys: order must be kept
      hi[i] = rng() % 300;            // 9 bits of tile
      val[i] = i;
    }
    vk::DeviceFrame f;
    for (auto* a : {&f.key_lo[0], &f.key_hi[0], &f.slots[0]}) a->resize(*device, m);
    stream->upload(f.key_lo[0].buffer(), 0, lo.data(), m * 4);
    stream->upload(f.key_hi[0].buffer(), 0, hi.data(), m * 4);
    stream->upload(f.slots[0].buffer(), 0, val.data(), m * 4);
    vk::sort_keys(*stream, f, m, 32, 9);
    std::vector<std::uint32_t> glo(m), ghi(m), gval(m);
    stream->download(f.key_lo[f.sorted].buffer(), 0, glo.data(), m * 4);
    stream->download(f.key_hi[f.sorted].buffer(), 0, ghi.data(), m * 4);
    stream->download(f.slots[f.sorted].buffer(), 0, gval.data(), m * 4);
    stream->finish();
    std::vector<std::uint32_t> order(m);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return (std::uint64_t(hi[a]) << 32 | lo[a]) < (std::uint64_t(hi[b]) << 32 | lo[b]);
    });
    std::size_t bad = 0;
    for (std::uint32_t i = 0; i < m; ++i) bad += gval[i] != order[i] || glo[i] != lo[order[i]] || ghi[i] != hi[order[i]];
    EXPECT_EQ(bad, 0u);
  }
}

GLINT_VULKAN_DRIVERS(VulkanStages);
