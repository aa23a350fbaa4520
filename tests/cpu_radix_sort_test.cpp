// The depth sort's radix sort against std::stable_sort, around its thresholds: the 8-bit
// digits below 64k pairs and the 11-bit ones above, the passes max_key allows, and the
// chunk counts of several thread counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "glint/backend/cpu/radix_sort.h"

namespace {

// n pairs with keys uniform in [0, max_key] (with runs of equal keys) and values that
// record the input position, or random values when `random_values`.
std::vector<std::uint64_t> pairs(std::size_t n, std::uint32_t max_key, unsigned seed, bool random_values) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> key(0, max_key);
  std::vector<std::uint64_t> a(n);
  std::uint32_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 7 != 3) k = key(rng);  // a few neighbours share a key, so stability shows
    const std::uint32_t v = random_values ? std::uint32_t(rng()) : std::uint32_t(i);
    a[i] = std::uint64_t(k) << 32 | v;
  }
  return a;
}

std::vector<std::uint64_t> stable_reference(std::vector<std::uint64_t> a) {
  std::stable_sort(a.begin(), a.end(), [](std::uint64_t x, std::uint64_t y) { return (x >> 32) < (y >> 32); });
  return a;
}

void check(std::size_t n, std::uint32_t max_key, bool random_values) {
  const std::vector<std::uint64_t> input = pairs(n, max_key, unsigned(n * 31 + max_key), random_values);
  const std::vector<std::uint64_t> want = stable_reference(input);
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE("n " + std::to_string(n) + " max_key " + std::to_string(max_key) + " threads " +
                 std::to_string(threads));
    std::vector<std::uint64_t> a = input, tmp{1, 2, 3};
    std::vector<std::uint32_t> hist(5, 7u);  // stale scratch must not matter
    glint::cpu::radix_sort_pairs(a, tmp, hist, max_key, threads);
    ASSERT_EQ(a.size(), want.size());
    EXPECT_TRUE(a == want);
  }
}

const std::uint32_t kMaxKeys[] = {0u, 1u, 255u, 256u, 2047u, 2048u, (1u << 22) - 1, 1u << 22, 0xFFFFFFFFu};

TEST(CpuRadixSort, SmallInputsEightBitDigits) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(65535)})
    for (std::uint32_t mk : kMaxKeys) check(n, mk, false);
}

TEST(CpuRadixSort, LargeInputsElevenBitDigits) {
  for (std::size_t n : {std::size_t(65536), std::size_t(65537), std::size_t(200003)})
    for (std::uint32_t mk : kMaxKeys) check(n, mk, false);
}

TEST(CpuRadixSort, ValuesTravelWithTheirKeys) {
  check(1000, 0xFFFFFFFFu, true);
  check(100000, 70000u, true);
}

TEST(CpuRadixSort, KeysAtMaxKeyAndZero) {
  // only the extremes: every digit pass sees both its all-zero and all-one buckets
  for (std::uint32_t mk : kMaxKeys)
    for (std::size_t n : {std::size_t(3), std::size_t(70000)}) {
      std::vector<std::uint64_t> a(n);
      for (std::size_t i = 0; i < n; ++i) a[i] = std::uint64_t((i * 2654435761u) % 3 == 0 ? mk : 0u) << 32 | i;
      const std::vector<std::uint64_t> want = stable_reference(a);
      std::vector<std::uint64_t> tmp;
      std::vector<std::uint32_t> hist;
      glint::cpu::radix_sort_pairs(a, tmp, hist, mk, 2);
      EXPECT_TRUE(a == want) << "max_key " << mk << " n " << n;
    }
}

}  // namespace
