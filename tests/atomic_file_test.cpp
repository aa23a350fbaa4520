#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "test_support.h"

namespace glint {
namespace {
namespace fs = std::filesystem;

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(AtomicFile, WritesAndReplacesLeavingNoTemporary) {
  test::TempDir dir;
  write_file_atomic(dir.str("a.bin"), std::string("first"));
  write_file_atomic(dir.str("a.bin"), std::string("second"));
  EXPECT_EQ(test::read_file(dir.str("a.bin")), "second");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(AtomicFile, FailureMidWriteKeepsTheOldFile) {
  test::TempDir dir;
  test::write_file(dir.str("a.bin"), "precious");
  EXPECT_THROW(write_file_atomic(dir.str("a.bin"),
                                 [](std::ostream& out) {
                                   out << "half of it";
                                   throw std::runtime_error("writer failed");
                                 }),
               std::runtime_error);
  EXPECT_EQ(test::read_file(dir.str("a.bin")), "precious");
  EXPECT_EQ(entries(dir.path()), 1u);
}

TEST(AtomicFile, MissingFolderIsAnErrorNamingThePath) {
  test::TempDir dir;
  const std::string path = dir.str("no/such/folder/a.ply");
  try {
    write_file_atomic(path, std::string("x"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
  EXPECT_EQ(entries(dir.path()), 0u);
}

TEST(AtomicFile, TargetThatIsAFolderIsAnError) {
  test::TempDir dir;
  fs::create_directory(dir.str("sub"));
  EXPECT_THROW(write_file_atomic(dir.str("sub"), std::string("x")), Error);
  EXPECT_TRUE(fs::is_directory(dir.str("sub")));
}

TEST(AtomicFile, UnwritableFolderIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions";
  test::TempDir dir;
  fs::create_directory(dir.str("ro"));
  test::write_file(dir.str("ro/a.bin"), "old");
  fs::permissions(dir.str("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_file_atomic(dir.str("ro/a.bin"), std::string("new")), Error);
  fs::permissions(dir.str("ro"), fs::perms::owner_all);
  EXPECT_EQ(test::read_file(dir.str("ro/a.bin")), "old");
  EXPECT_EQ(entries(dir.str("ro")), 1u);
}

}  // namespace
}  // namespace glint
