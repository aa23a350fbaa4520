// ImageF's storage (core/uninitialized_allocator.h): filled where a value is given, left
// unset where not, and large buffers on 2 MiB boundaries (core/huge_pages.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "glint/core/huge_pages.h"
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
  EXPECT_TRUE(A::on_huge_pages(800 * 800 * 4));        // 2.56 MB: its first page
  for (const ImageF& big : {ImageF(800, 800, 3, 1.f), ImageF(800, 800, 1, 1.f)})
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data.data()) % kHugePage, 0u);
  const ImageF big(800, 800, 3, 1.f);
  ImageF copy = big;  // copies and growth go through the same allocator
  copy.data.resize(copy.data.size() + 7, 2.f);
  EXPECT_EQ(copy.data.front(), 1.f);
  EXPECT_EQ(copy.data.back(), 2.f);
  copy.data.resize(10);
  copy.data.shrink_to_fit();
  EXPECT_EQ(copy.data.size(), 10u);
}

TEST(CoreImage, HugePageSpansCommitAtMostAnEighthMore) {
  constexpr std::size_t mib = std::size_t(1) << 20;
  EXPECT_EQ(huge_page_span(0), 0u);
  EXPECT_EQ(huge_page_span(2 * mib - 1), 0u);                    // under one page: none
  EXPECT_EQ(huge_page_span(2 * mib), 2 * mib);                   // exactly one
  EXPECT_EQ(huge_page_span(800 * 800 * 3 * 4), 8 * mib);         // 7.68 MB: rounded up, 4% more
  EXPECT_EQ(huge_page_span(800 * 800 * 4), 2 * mib);             // 2.56 MB: 4 MiB would be 64% more
  EXPECT_EQ(huge_page_span(9 * mib), 10 * mib);                  // 11% more
  EXPECT_EQ(huge_page_span(std::size_t(-1)), std::size_t(-1) / kHugePage * kHugePage);  // no overflow
  for (std::size_t bytes : {2 * mib, 3 * mib, std::size_t{800 * 800 * 4}}) {
    void* p = allocate_on_huge_pages(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kHugePage, 0u);
    static_cast<unsigned char*>(p)[bytes - 1] = 1;  // all of it usable
    std::free(p);
  }
}
