#include "glint/backend/cpu/radix_sort.h"

#include <algorithm>
#include <cstddef>

#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/prefix_sum.h"

namespace glint::cpu {

// 11 bits a pass (8 below 64k pairs: a small input pays more for 2048 scattered write
// streams than for a third pass). Offsets are laid out bucket-major, chunk-minor, so the
// result is the stable order whatever the chunk count.
// Key and value travel as one 64-bit word: one load and one scattered store each, where
// separate key and value arrays take two of each.
void radix_sort_pairs(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& tmp,
                      std::vector<std::uint32_t>& hist, std::uint32_t max_key, int threads) {
  const std::size_t n = a.size();
  tmp.resize(n);
  const int digit_bits = n < 65536 ? 8 : 11, buckets = 1 << digit_bits;
  const int nchunks = threads <= 1 ? 1 : std::max(1, std::min(threads * 2, int(n / 32768)));
  const std::size_t chunk = (n + std::size_t(nchunks) - 1) / std::size_t(nchunks);
  hist.resize(std::size_t(nchunks) * buckets);
  for (int bit = 0; bit < 32 && (max_key >> bit) != 0; bit += digit_bits) {
    const int shift = 32 + bit;
    const std::uint64_t* in = a.data();
    std::uint64_t* out = tmp.data();
    parallel_for_chunks(nchunks, threads, [&](int c) {
      std::uint32_t* h = hist.data() + std::size_t(c) * buckets;
      std::fill(h, h + buckets, 0u);
      const std::size_t b = std::size_t(c) * chunk, e = std::min(n, b + chunk);
      for (std::size_t i = b; i < e; ++i) ++h[(in[i] >> shift) & (buckets - 1)];
    });
    exclusive_scan_bucket_major(hist.data(), nchunks, std::size_t(buckets));
    parallel_for_chunks(nchunks, threads, [&](int c) {
      std::uint32_t* h = hist.data() + std::size_t(c) * buckets;
      const std::size_t b = std::size_t(c) * chunk, e = std::min(n, b + chunk);
      for (std::size_t i = b; i < e; ++i) {
        const std::uint64_t x = in[i];
        out[h[(x >> shift) & (buckets - 1)]++] = x;
      }
    });
    a.swap(tmp);
  }
}

}  // namespace glint::cpu
