#pragma once
// Per-splat identity tags for checking that row edits of a SplatSet keep every array of a
// splat together: each value of splat `id` in array `a`, column `j` is a distinct float
// that encodes (id, a, j) exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "glint/train/splat_set.h"

namespace glint::test {

inline float splat_tag(std::size_t id, std::size_t array, std::size_t col) {
  return static_cast<float>(id * 4096 + array * 64 + col + 1);  // exact below 2^24
}

// A set of n splats, every array of splat i tagged with id i.
inline SplatSet tagged_splats(std::size_t n) {
  GaussianModel m;
  m.resize(n);
  SplatSet set(std::move(m));
  auto arrays = set.arrays();
  for (std::size_t a = 0; a < arrays.size(); ++a)
    for (std::size_t i = 0; i < n; ++i)
      for (int j = 0; j < arrays[a].width; ++j) (*arrays[a].data)[i * arrays[a].width + j] = splat_tag(i, a, j);
  return set;
}

// What row `row` must carry: splat `id`'s tags, except arrays named in `skip` (edited on
// purpose), and zeros in every Adam moment and statistic when `fresh`.
inline void expect_row_is(SplatSet& set, std::size_t row, std::size_t id, bool fresh,
                          const std::set<std::string>& skip = {}) {
  auto arrays = set.arrays();
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    if (skip.count(arrays[a].name)) continue;
    const bool zero = fresh && a >= kNumParamGroups;
    for (int j = 0; j < arrays[a].width; ++j) {
      float v = (*arrays[a].data)[row * arrays[a].width + j];
      ASSERT_EQ(v, zero ? 0.f : splat_tag(id, a, j))
          << "row " << row << " (splat " << id << ") array " << arrays[a].name << " col " << j;
    }
  }
}

}  // namespace glint::test
