#pragma once
// The depth sort's primitive: a stable LSD radix sort of 64-bit (key << 32 | value) pairs
// by their key.
#include <cstdint>
#include <vector>

namespace glint::cpu {

// Sorts `a` by the high 32 bits of each element, stably (equal keys keep their order), for
// keys up to max_key: the digits above max_key's highest bit are taken as zero and not
// sorted on, so a key above max_key leaves the order undefined. `tmp` and `hist` are
// scratch (resized here, their contents lost). Each pass counts and scatters contiguous
// chunks of the input with up to `threads` OpenMP threads; the result does not depend on
// the thread count.
void radix_sort_pairs(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& tmp,
                      std::vector<std::uint32_t>& hist, std::uint32_t max_key, int threads);

}  // namespace glint::cpu
