// ImageF's storage (core/uninitialized_allocator.h): filled where a value is given, left
// unset where not, and large buffers on 2 MiB boundaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "glint/core/image.h"
#include "glint/core/uninitialized_allocator.h"

using namespace glint;

TEST(CoreImage, ConstructorFillsSmallAndLargeImages) {
  for (int side : {3, 800}) {
    const ImageF zero(side, side, 3), half(side, side, 1, 0.5f);
    ASSERT_EQ(zero.data.size(), std::size_t(side) * side * 3);
    EXPECT_TRUE(std::all_of(zero.data.begin(), zero.data.end(), [](float v) { return v == 0.f; })) << side;
    EXPECT_TRUE(std::all_of(half.data.begin(), half.data.end(), [](float v) { return v == 0.5f; })) << side;
  }
  const ImageF u = ImageF::uninitialized(800, 800, 3);
  EXPECT_EQ(u.width, 800);
  EXPECT_EQ(u.channels, 3);
  EXPECT_EQ(u.data.size(), std::size_t(800) * 800 * 3);
}

TEST(CoreImage, LargeBuffersSitOnHugePageBoundaries) {
  using A = UninitializedAllocator<float>;
  constexpr std::size_t mib = std::size_t(1) << 20;
  EXPECT_FALSE(A::on_huge_pages(mib));                 // under one page
  EXPECT_TRUE(A::on_huge_pages(2 * mib));              // exactly one
  EXPECT_TRUE(A::on_huge_pages(800 * 800 * 3 * 4));    // 7.68 MB in 8 MiB
  EXPECT_FALSE(A::on_huge_pages(800 * 800 * 4));       // 2.56 MB would waste 1.4 MiB
  const ImageF big(800, 800, 3, 1.f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data.data()) % A::kHugePage, 0u);
  ImageF copy = big;  // copies and growth go through the same allocator
  copy.data.resize(copy.data.size() + 7, 2.f);
  EXPECT_EQ(copy.data.front(), 1.f);
  EXPECT_EQ(copy.data.back(), 2.f);
  copy.data.resize(10);
  copy.data.shrink_to_fit();
  EXPECT_EQ(copy.data.size(), 10u);
}
