// Every kind of broken dataset the foundation issue lists: one line on stderr naming the
// file and the problem, exit code 2, no crash.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "glint/io/image_io.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {

void expect_error(const std::string& dir, const std::string& file_part, const std::string& problem) {
  CommandResult r = run_glint("info '" + dir + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_EQ(r.err.rfind("glint: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(file_part), std::string::npos) << "file not named: " << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << "problem not stated: " << r.err;
}

std::string sparse(const TempDir& d, const char* file) { return d.str(std::string("sparse/0/") + file); }

}  // namespace

TEST(DatasetErrors, MissingFolder) { expect_error("/nonexistent/glint/data", "/nonexistent/glint/data", "not found"); }

TEST(DatasetErrors, FolderWithoutDataset) {
  TempDir d;
  expect_error(d.str(), d.str(), "no dataset found");
}

TEST(DatasetErrors, TruncatedCamerasBin) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  std::string c = read_file(sparse(d, "cameras.bin"));
  write_file(sparse(d, "cameras.bin"), c.substr(0, c.size() - 5));
  expect_error(d.str(), "cameras.bin", "truncated");
}

TEST(DatasetErrors, CorruptedCountInImagesBin) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  std::string s = read_file(sparse(d, "images.bin"));
  std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() / 2;
  std::memcpy(s.data(), &huge, 8);
  write_file(sparse(d, "images.bin"), s);
  expect_error(d.str(), "images.bin", "corrupted");
}

TEST(DatasetErrors, CountMismatchLeavesTrailingBytes) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  std::string s = read_file(sparse(d, "points3D.bin"));
  std::uint64_t fewer = 2;
  std::memcpy(s.data(), &fewer, 8);
  write_file(sparse(d, "points3D.bin"), s);
  expect_error(d.str(), "points3D.bin", "trailing bytes");
}

TEST(DatasetErrors, UnknownCameraModel) {
  TempDir d;
  write_colmap_dataset(d.str(), 3, /*text=*/true);
  write_file(sparse(d, "cameras.txt"), "1 WEIRD_LENS 32 24 30 30 16 12\n");
  expect_error(d.str(), "cameras.txt:1", "unknown camera model 'WEIRD_LENS'");
}

TEST(DatasetErrors, UnknownCameraModelIdInBinary) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  FakeCamera cam;
  cam.model_id = 42;
  write_file(sparse(d, "cameras.bin"), cameras_bin({cam}));
  expect_error(d.str(), "cameras.bin", "unknown camera model id 42");
}

TEST(DatasetErrors, NonFinitePose) {
  TempDir d;
  auto ims = write_colmap_dataset(d.str(), 3);
  ims[1].t.y = std::numeric_limits<double>::quiet_NaN();
  write_file(sparse(d, "images.bin"), images_bin(ims));
  expect_error(d.str(), "images.bin", "non-finite pose");
}

TEST(DatasetErrors, NonFiniteIntrinsic) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  FakeCamera cam;
  cam.params[0] = std::numeric_limits<double>::infinity();
  write_file(sparse(d, "cameras.bin"), cameras_bin({cam}));
  expect_error(d.str(), "cameras.bin", "non-finite intrinsic");
}

TEST(DatasetErrors, ImageRefersToUndefinedCamera) {
  TempDir d;
  auto ims = write_colmap_dataset(d.str(), 3);
  ims[0].camera_id = 9;
  write_file(sparse(d, "images.bin"), images_bin(ims));
  expect_error(d.str(), "images.bin", "camera 9");
}

TEST(DatasetErrors, MissingImage) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  std::filesystem::remove(d.str("images/img_1.png"));
  expect_error(d.str(), "img_1.png", "missing");
}

TEST(DatasetErrors, UnreadableImage) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  write_file(d.str("images/img_2.png"), "this is not a png");
  expect_error(d.str(), "img_2.png", "not a readable image");
}

TEST(DatasetErrors, ImageOfUnexpectedSize) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  write_file(d.str("images/img_0.png"), encode_png(pattern_image(40, 40, 3, 0)));
  expect_error(d.str(), "img_0.png", "image is 40x40 but its camera is 32x24");
}

TEST(DatasetErrors, EmptyPointCloud) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  write_file(sparse(d, "points3D.bin"), points_bin({}));
  expect_error(d.str(), "points3D.bin", "empty");
}

TEST(DatasetErrors, EmptyPointCloudPly) {
  TempDir d;
  write_transforms_dataset(d.str(), 3);
  auto j = nlohmann::json::parse(read_file(d.str("transforms.json")));
  j["ply_file_path"] = "sparse.ply";
  write_file(d.str("transforms.json"), j.dump());
  write_file(d.str("sparse.ply"),
             "ply\nformat binary_little_endian 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
             "property float z\nend_header\n");
  expect_error(d.str(), "sparse.ply", "empty");
}

TEST(DatasetErrors, InvalidJson) {
  TempDir d;
  write_transforms_dataset(d.str(), 3);
  write_file(d.str("transforms.json"), "{ \"frames\": [ ");
  expect_error(d.str(), "transforms.json", "invalid JSON");
}

TEST(DatasetErrors, FrameWithoutMatrix) {
  TempDir d;
  write_transforms_dataset(d.str(), 3);
  auto j = nlohmann::json::parse(read_file(d.str("transforms.json")));
  j["frames"][1].erase("transform_matrix");
  write_file(d.str("transforms.json"), j.dump());
  expect_error(d.str(), "images/f_1.png", "missing 'transform_matrix'");
}

TEST(DatasetErrors, NonFiniteFocalInJson) {
  TempDir d;
  write_transforms_dataset(d.str(), 3);
  std::string s = read_file(d.str("transforms.json"));
  s.replace(s.find("\"fl_x\": 30.0"), 12, "\"fl_x\": 1e999");
  write_file(d.str("transforms.json"), s);
  CommandResult r = run_glint("info '" + d.str() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("transforms.json"), std::string::npos) << r.err;
}

TEST(DatasetErrors, ShearedRotation) {
  TempDir d;
  write_transforms_dataset(d.str(), 3);
  auto j = nlohmann::json::parse(read_file(d.str("transforms.json")));
  j["frames"][0]["transform_matrix"][0][0] = 3.0;
  write_file(d.str("transforms.json"), j.dump());
  expect_error(d.str(), "f_0.png", "not a proper rotation");
}

TEST(DatasetErrors, BadFlagValue) {
  TempDir d;
  write_transforms_dataset(d.str(), 3);
  CommandResult r = run_glint("info '" + d.str() + "' --background purple");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--background"), std::string::npos) << r.err;
}
