#pragma once
// The two device-wide algorithms the forward and the refinement need, over device buffers: an
// exclusive prefix sum of 32- or 64-bit counts and a stable radix sort of (64-bit key, 32-bit value) pairs.
// Under nvcc they are CUB's (it ships with the toolkit); under the emulator the standard
// library's, with the same results: the sum is exact in integers, and both sorts are
// stable, so equal keys keep their order.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/indexing.h"

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#else
#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>
#endif

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

// out[i] = in[0] + ... + in[i - 1] for i < n; scratch grows as the algorithm needs. 32-bit
// counts whose total stays below 2^32 (flags of rows), or 64-bit ones (tile counts, whose
// total can pass it, and fixed-point weights: exact in any summation order). The sum is
// accumulated in T.
template <class T>
inline void exclusive_sum(const T* in, T* out, std::size_t n_values, DeviceBuffer<unsigned char>& scratch) {
  static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>, "unsigned 32- or 64-bit sums");
  check_size("values in one scan", n_values, kMaxRows);
  const auto n = static_cast<std::uint32_t>(n_values);
  if (n == 0) return;
#if defined(__CUDACC__)
  std::size_t bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n), "scan size");
  scratch.resize(bytes);
  check(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, in, out, n), "scan");
#else
  (void)scratch;
  std::exclusive_scan(in, in + n, out, T{0});
#endif
}

// keys_out/values_out = the m pairs sorted by key, ties in input order.
inline void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::size_t m_pairs, DeviceBuffer<unsigned char>& scratch) {
  check_size("pairs in one sort", m_pairs, kMaxInstances);
  const auto m = static_cast<std::uint32_t>(m_pairs);
  if (m == 0) return;
#if defined(__CUDACC__)
  std::size_t bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in, values_out, m), "sort size");
  scratch.resize(bytes);
  check(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, keys_in, keys_out, values_in, values_out, m), "sort");
#else
  (void)scratch;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> pairs(m);
  for (std::uint32_t i = 0; i < m; ++i) pairs[i] = {keys_in[i], values_in[i]};
  std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::uint32_t i = 0; i < m; ++i) {
    keys_out[i] = pairs[i].first;
    values_out[i] = pairs[i].second;
  }
#endif
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
