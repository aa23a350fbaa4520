#include <gtest/gtest.h>

#include <filesystem>

#include "glint/io/gzip.h"
#include "glint/io/ply.h"
#include "glint/io/spz.h"
#include "test_support.h"

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

// The SPZ fuzzer's seeds: a mode byte (even: the file; odd: its decompressed content), then
// bytes that read as a model (fuzz/spz_fuzz.cpp).
TEST(FuzzCorpus, SpzSeedsAreValidFiles) {
  const std::filesystem::path dir = std::filesystem::path(GLINT_SOURCE_DIR) / "fuzz/corpus/spz";
  int n = 0, modes[2] = {0, 0};
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string data = test::read_file(e.path().string());
    ASSERT_FALSE(data.empty()) << e.path();
    const int mode = static_cast<unsigned char>(data[0]) % 2;
    const std::string rest = data.substr(1);
    EXPECT_NO_THROW(read_spz_bytes(mode == 1 ? gzip_compress(rest) : rest, e.path().string())) << e.path();
    ++modes[mode];
    ++n;
  }
  EXPECT_GE(n, 4);
  EXPECT_GE(modes[0], 1);
  EXPECT_GE(modes[1], 1);
}

}  // namespace
}  // namespace glint
