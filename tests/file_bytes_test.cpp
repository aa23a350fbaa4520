#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"
#include "test_support.h"

using namespace glint;

TEST(FileBytes, ReadsEveryByteOfAFile) {
  test::TempDir d;
  std::string bytes;
  for (unsigned i = 0; i < 300000; ++i) bytes.push_back(static_cast<char>(i * 7919u % 256u));  // NULs included
  test::write_file(d.str("a.bin"), bytes);
  EXPECT_EQ(read_file_bytes(d.str("a.bin")), bytes);
  test::write_file(d.str("empty"), "");
  EXPECT_EQ(read_file_bytes(d.str("empty")), "");
}

TEST(FileBytes, ReadsAStreamOfNoKnownSize) {
  test::TempDir d;
  const std::string fifo = d.str("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A writer in the background: opening a FIFO for reading waits for it. Bounded in time
  // and detached from the test's output, so that a failing read leaves nothing waiting.
  ASSERT_EQ(std::system(("(timeout 20 sh -c \"printf 'through a pipe' > '" + fifo + "'\") </dev/null >/dev/null 2>&1 &").c_str()), 0);
  EXPECT_EQ(read_file_bytes(fifo), "through a pipe");
}

TEST(FileBytes, MissingFileAndFolderAreErrorsNamingThePath) {
  test::TempDir d;
  try {
    read_file_bytes(d.str("nope.ply"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.ply"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_file_bytes(d.str()), Error);
}
