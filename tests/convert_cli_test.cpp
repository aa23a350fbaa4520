#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "glint/io/model_file.h"
#include "model_fixture.h"
#include "test_support.h"

namespace glint {
namespace {

using test::run_glint;

TEST(ConvertCli, PlyToSplatToPlyKeepsPositionsExactly) {
  test::TempDir dir;
  const GaussianModel m = test::random_model(50, 3, 4);
  save_model(dir.str("in.ply"), m);

  auto r = run_glint("convert " + dir.str("in.ply") + " " + dir.str("mid.splat"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + dir.str("mid.splat") + ": 50 splats (SH degree 0"), std::string::npos) << r.out;
  EXPECT_EQ(std::filesystem::file_size(dir.str("mid.splat")), 50u * 32u);

  r = run_glint("convert " + dir.str("mid.splat") + " " + dir.str("out.PLY"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + dir.str("out.PLY") + ": 50 splats (SH degree 0)"), std::string::npos) << r.out;

  test::expect_splat_quantised(m, load_model(dir.str("out.PLY")), false);
}

TEST(ConvertCli, PlyToPlyIsByteIdentical) {
  test::TempDir dir;
  save_model(dir.str("in.ply"), test::random_model(9, 2));
  const auto r = run_glint("convert " + dir.str("in.ply") + " " + dir.str("out.ply"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(dir.str("out.ply")), test::read_file(dir.str("in.ply")));
}

TEST(ConvertCli, RefusesToOverwriteWithoutForce) {
  test::TempDir dir;
  save_model(dir.str("in.ply"), test::random_model(3, 0));
  test::write_file(dir.str("out.splat"), "keep me");
  auto r = run_glint("convert " + dir.str("in.ply") + " " + dir.str("out.splat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "glint: error: " + dir.str("out.splat") + ": already exists; pass --force to overwrite it\n");
  EXPECT_EQ(test::read_file(dir.str("out.splat")), "keep me");

  r = run_glint("convert --force " + dir.str("in.ply") + " " + dir.str("out.splat"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::filesystem::file_size(dir.str("out.splat")), 3u * 32u);
}

TEST(ConvertCli, BadArgumentsAreOneLineErrors) {
  test::TempDir dir;
  save_model(dir.str("in.ply"), test::random_model(3, 0));
  struct Case {
    std::string args, message;
  } cases[] = {
      {dir.str("in.ply") + " " + dir.str("out.obj"),
       dir.str("out.obj") + ": unknown splat file type '.obj'; expected .ply, .splat or .spz"},
      {dir.str("missing.ply") + " " + dir.str("out.splat"), dir.str("missing.ply") + ": no such file"},
      {dir.str("in.ply") + " " + dir.str("no/dir/out.splat"),
       dir.str("no/dir/out.splat") + ": cannot write: folder " + dir.str("no/dir") + " does not exist"},
  };
  for (const auto& c : cases) {
    const auto r = run_glint("convert " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err, "glint: error: " + c.message + "\n");
  }
}

TEST(ConvertCli, TruncatedSplatInputFailsAndWritesNothing) {
  test::TempDir dir;
  test::write_file(dir.str("in.splat"), std::string(40, '\1'));
  const auto r = run_glint("convert " + dir.str("in.splat") + " " + dir.str("out.ply"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a multiple of 32"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

}  // namespace
}  // namespace glint
