// The rasterizer's exclusive prefix sums against serial scans written out the long way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "glint/backend/cpu/prefix_sum.h"

namespace {

using glint::cpu::exclusive_scan_bucket_major;
using glint::cpu::exclusive_scan_counts;

TEST(CpuPrefixSum, CountsBecomeOffsets) {
  std::mt19937 rng(5);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(5000)}) {
    std::vector<std::uint32_t> counts(n);
    for (auto& c : counts) c = rng() % 100;
    std::vector<std::uint32_t> a(n + 1, 0u);
    for (std::size_t i = 0; i < n; ++i) a[i + 1] = counts[i];
    const std::uint32_t total = exclusive_scan_counts(a.data(), n);
    std::uint32_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(a[i], want) << "n " << n << " i " << i;
      want += counts[i];
    }
    EXPECT_EQ(a[n], want);
    EXPECT_EQ(total, want);
  }
}

TEST(CpuPrefixSum, SeveralSumsAtOnce) {
  struct Pair {
    std::uint64_t a = 0;
    std::uint32_t b = 0;
  };
  std::vector<Pair> v(6);
  for (std::size_t i = 1; i < v.size(); ++i) v[i] = {std::uint64_t(i) << 33, std::uint32_t(i)};
  const Pair total = exclusive_scan_counts(v.data(), 5, [](Pair& next, const Pair& prev) {
    next.a += prev.a;
    next.b += prev.b;
  });
  std::uint64_t a = 0;
  std::uint32_t b = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(v[i].a, a);
    EXPECT_EQ(v[i].b, b);
    if (i < 5) a += std::uint64_t(i + 1) << 33, b += std::uint32_t(i + 1);
  }
  EXPECT_EQ(total.a, a);
  EXPECT_EQ(total.b, b);
}

TEST(CpuPrefixSum, BucketMajorChunkMinor) {
  std::mt19937 rng(9);
  for (int chunks : {1, 2, 5})
    for (std::size_t buckets : {std::size_t(1), std::size_t(3), std::size_t(256), std::size_t(2048)}) {
      std::vector<std::uint32_t> counts(std::size_t(chunks) * buckets);
      for (auto& c : counts) c = rng() % 4 == 0 ? 0u : rng() % 50;
      std::vector<std::uint32_t> h = counts, first(buckets + 1, 99u);
      const std::uint32_t total = exclusive_scan_bucket_major(h.data(), chunks, buckets, first.data());
      // the slow way: everything in an earlier bucket, plus this bucket's earlier chunks
      std::uint32_t all = 0;
      for (std::uint32_t c : counts) all += c;
      EXPECT_EQ(total, all);
      EXPECT_EQ(first[buckets], all);
      for (std::size_t d = 0; d < buckets; ++d) {
        std::uint32_t below = 0;
        for (std::size_t e = 0; e < d; ++e)
          for (int c = 0; c < chunks; ++c) below += counts[std::size_t(c) * buckets + e];
        EXPECT_EQ(first[d], below);
        for (int c = 0; c < chunks; ++c) {
          EXPECT_EQ(h[std::size_t(c) * buckets + d], below) << chunks << " chunks, bucket " << d << ", chunk " << c;
          below += counts[std::size_t(c) * buckets + d];
        }
      }
      std::vector<std::uint32_t> h2 = counts;  // without bucket_first: the same offsets
      EXPECT_EQ(exclusive_scan_bucket_major(h2.data(), chunks, buckets), total);
      EXPECT_EQ(h2, h);
    }
}

TEST(CpuPrefixSum, EmptyHistogram) {
  std::vector<std::uint32_t> first(1, 5u);
  EXPECT_EQ(exclusive_scan_bucket_major(nullptr, 3, 0, first.data()), 0u);
  EXPECT_EQ(first[0], 0u);
}

}  // namespace
