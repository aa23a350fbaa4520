#include <gtest/gtest.h>

#include <filesystem>

#include "glint/io/ply.h"

namespace glint {
namespace {

// The fuzzer's seeds should be valid files, so mutations start from inputs that reach the
// body parser rather than failing in the header.
TEST(FuzzCorpus, PlySeedsAreValidFiles) {
  const std::filesystem::path dir = std::filesystem::path(GLINT_SOURCE_DIR) / "fuzz/corpus/ply";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_NO_THROW(read_ply(e.path().string())) << e.path();
    ++n;
  }
  EXPECT_GE(n, 2);
}

}  // namespace
}  // namespace glint
