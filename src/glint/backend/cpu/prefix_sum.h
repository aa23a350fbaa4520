#pragma once
// Exclusive prefix sums of the rasterizer's chunked passes: the instance offsets of the
// splats, the depth-order counts of the binning, the tile offsets, and the radix sort's
// digit offsets. Serial over chunk totals or histograms (each pass sums its chunks in
// parallel first), so the bits never depend on the thread count.
#include <cstddef>
#include <cstdint>

namespace glint::cpu {

// a[0..n]: on entry a[0] is zero and a[i + 1] the count of item i; on return a[i] is the
// sum of the counts of the items before i, and a[n] the total (returned). `add(next, prev)`
// folds the running prefix `prev` into `next` (for several sums at once).
template <class T, class Add>
T exclusive_scan_counts(T* a, std::size_t n, Add&& add) {
  for (std::size_t i = 0; i < n; ++i) add(a[i + 1], a[i]);
  return a[n];
}
template <class T>
T exclusive_scan_counts(T* a, std::size_t n) {
  return exclusive_scan_counts(a, n, [](T& next, const T& prev) { next += prev; });
}

// A histogram of `chunks` rows of `buckets` counts (row c: how many of chunk c's elements
// fall in each bucket), turned in place into each (chunk, bucket)'s first place in the
// output when the buckets are laid out in order, and within a bucket the chunks in order:
// the offsets of a stable counting sort whose input is split into chunks. bucket_first
// (optional, [buckets + 1]) receives each bucket's first place and the total. Returns the
// total.
inline std::uint32_t exclusive_scan_bucket_major(std::uint32_t* hist, int chunks, std::size_t buckets,
                                                 std::uint32_t* bucket_first = nullptr) {
  std::uint32_t run = 0;
  for (std::size_t d = 0; d < buckets; ++d) {
    if (bucket_first) bucket_first[d] = run;
    for (int c = 0; c < chunks; ++c) {
      std::uint32_t& h = hist[std::size_t(c) * buckets + d];
      const std::uint32_t v = h;
      h = run;
      run += v;
    }
  }
  if (bucket_first) bucket_first[buckets] = run;
  return run;
}

}  // namespace glint::cpu
