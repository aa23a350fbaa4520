// `glint sfm` and `glint train` on captures without poses, through the real COLMAP and
// ffmpeg: a subset of the shared statue photos (its own poses set aside) must register
// and give camera centres that match the dataset's after a similarity alignment; a clip
// made here from the same photos, each between two blurred copies, must give back the
// sharp frames and register them; a second run reuses the first; bad input is one line
// and exit 2. Skips without COLMAP or ffmpeg on a user's machine, fails under CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "glint/capture/external_tool.h"
#include "glint/core/error.h"
#include "glint/io/colmap.h"
#include "glint/io/image_io.h"
#include "support/similarity_align.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;
namespace fs = std::filesystem;

namespace {

#define GLINT_REQUIRE_TOOLS()                                                                   \
  for (const glint::capture::Tool& tool_ : {glint::capture::kColmap, glint::capture::kFfmpeg}) { \
    try {                                                                                       \
      glint::capture::find_tool(tool_);                                                         \
    } catch (const glint::Error& e_) {                                                          \
      if (std::getenv("CI")) FAIL() << "required under CI: " << e_.what();                      \
      GTEST_SKIP() << e_.what();                                                                \
    }                                                                                           \
  }

// Small and fast: SIFT at 640 pixels, 2048 features (the statue's photos are 1000 wide).
const std::string kFast = " --sfm-size 640 --sfm-features 2048";

std::map<std::string, Vec3d> centres_by_stem(const ColmapModel& m) {
  std::map<std::string, Vec3d> c;
  for (const ColmapImage& im : m.images) {
    const Mat3d R = quat_to_rotmat(im.q);
    c[fs::path(im.name).stem().string()] = -1.0 * (transpose(R) * im.t);
  }
  return c;
}

struct CentreCheck {
  std::size_t matched = 0;
  // Centre errors after alignment, as fractions of the mean distance from the dataset's
  // cameras to its scene (the centroid of its points): the worst one and their RMS.
  double worst = 0, rms = 0;
};

// Aligns the SfM centres to the dataset's (by image stem, or through `stem_of`) with the
// best similarity transform and measures what is left. With a narrow field of view (the
// statue's is 28 degrees) the error lies mostly along the viewing direction.
CentreCheck compare_centres(const ColmapModel& sfm, const ColmapModel& truth,
                            const std::map<std::string, std::string>& stem_of = {}) {
  const auto a = centres_by_stem(sfm), b = centres_by_stem(truth);
  std::vector<Vec3d> pa, pb;
  for (const auto& [stem, c] : a) {
    const auto it = stem_of.find(stem);
    const auto jt = b.find(it == stem_of.end() ? stem : it->second);
    if (jt == b.end()) continue;
    pa.push_back(c);
    pb.push_back(jt->second);
  }
  CentreCheck r;
  r.matched = pa.size();
  if (pa.size() < 3 || truth.points.size() == 0) return r;
  const Similarity s = align_similarity(pa, pb);
  Vec3d scene{0, 0, 0};
  for (std::size_t i = 0; i < truth.points.size(); ++i)
    scene = scene + Vec3d{truth.points.xyz[3 * i], truth.points.xyz[3 * i + 1], truth.points.xyz[3 * i + 2]};
  scene = (1.0 / static_cast<double>(truth.points.size())) * scene;
  double distance = 0;
  for (const Vec3d& p : pb) distance += norm(p - scene);
  distance /= static_cast<double>(pb.size());
  double sum2 = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    const double e = norm(s.apply(pa[i]) - pb[i]) / distance;
    r.worst = std::max(r.worst, e);
    sum2 += e * e;
  }
  r.rms = std::sqrt(sum2 / static_cast<double>(pa.size()));
  return r;
}

std::vector<std::string> statue_names(const std::string& statue, std::size_t count) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(statue + "/images")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  names.resize(std::min(count, names.size()));
  return names;
}

long line_count(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

}  // namespace

TEST(SfmCli, StatuePhotosRegisterWhereTheDatasetPutsThem) {
  GLINT_REQUIRE_TOOLS();
  GLINT_REQUIRE_SHARED(statue, "statue");
  TempDir d;
  // Twelve consecutive photos (of 23): enough views of one side for SfM, small enough for CI.
  fs::create_directories(d.path() / "photos");
  for (const std::string& n : statue_names(statue, 12)) fs::copy_file(statue + "/images/" + n, d.path() / "photos" / n);

  CommandResult r = run_glint("sfm '" + d.str("photos") + "' -o '" + d.str("ds") + "'" + kFast);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("SfM: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean reprojection error"), std::string::npos) << r.out;
  // The photos' heights differ by a few pixels (656-662): cropped to share one camera.
  EXPECT_NE(r.out.find("camera 1: SIMPLE_RADIAL 1000x656"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("camera 2"), std::string::npos) << r.out;
  for (const char* stage : {"sfm features", "sfm matching", "sfm mapping"})
    EXPECT_NE(r.err.find(stage), std::string::npos) << stage << " not shown: " << r.err;

  const ColmapModel sfm = read_colmap_model(d.str("ds/sparse/0"));
  EXPECT_GE(sfm.images.size(), 11u) << "at least 90 % of 12 registered";
  const CentreCheck c = compare_centres(sfm, read_colmap_model(statue + "/sparse/0"));
  EXPECT_EQ(c.matched, sfm.images.size());
  std::printf("statue, 12 photos: %zu registered, camera centre error after alignment: worst %.4f, RMS %.4f "
              "of the distance to the scene\n", sfm.images.size(), c.worst, c.rms);
  EXPECT_LT(c.worst, 0.025);
  EXPECT_LT(c.rms, 0.012);
  EXPECT_TRUE(fs::exists(d.path() / "ds" / "glint-sfm.json"));
  EXPECT_FALSE(fs::exists(d.str("ds.partial")));

  // The same photos again: reused, COLMAP not run.
  const auto t0 = std::chrono::steady_clock::now();
  r = run_glint("sfm '" + d.str("photos") + "' -o '" + d.str("ds") + "'" + kFast);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reusing"), std::string::npos) << r.out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  // Other settings on a folder that holds a result: refused, the result kept.
  r = run_glint("sfm '" + d.str("photos") + "' -o '" + d.str("ds") + "' --sfm-features 1000");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--redo-sfm"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(d.str("ds/sparse/0")));

  // glint train on the photos: SfM into OUT/sfm (here the result above, moved there, so
  // that it is reused), then training on it.
  fs::create_directories(d.path() / "run");
  fs::rename(d.path() / "ds", d.path() / "run" / "sfm");
  r = run_glint("train '" + d.str("photos") + "' -o '" + d.str("run") + "'" + kFast +
                " --steps 20 --downscale 8 -q");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("reusing"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(d.path() / "run" / "scene.ply"));
  // And the dataset folder by itself.
  r = run_glint("info '" + d.str("run/sfm") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

namespace {
// A box blur of radius r, edges clamped.
Image8 box_blur(const Image8& in, int r) {
  Image8 out = in;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      for (int c = 0; c < in.channels; ++c) {
        int s = 0, n = 0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int xx = std::clamp(x + dx, 0, in.width - 1), yy = std::clamp(y + dy, 0, in.height - 1);
            s += in.row(yy)[xx * in.channels + c];
            ++n;
          }
        out.row(y)[x * out.channels + c] = static_cast<std::uint8_t>(s / n);
      }
  return out;
}

// Half size by 2x2 means, cropped to w x h.
Image8 half(const Image8& in, int w, int h) {
  Image8 out;
  out.width = w;
  out.height = h;
  out.channels = 3;
  out.data.resize(static_cast<std::size_t>(w * h * 3));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        int s = 0;
        for (int k = 0; k < 4; ++k) s += in.row(2 * y + k / 2)[(2 * x + k % 2) * in.channels + c];
        out.row(y)[x * 3 + c] = static_cast<std::uint8_t>(s / 4);
      }
  return out;
}
}  // namespace

TEST(SfmCli, VideoKeepsTheSharpFrameOfEachWindowAndRegistersThem) {
  GLINT_REQUIRE_TOOLS();
  GLINT_REQUIRE_SHARED(statue, "statue");
  TempDir d;
  // Each of ten photos becomes three frames: blurred, sharp, blurred.
  const std::vector<std::string> names = statue_names(statue, 10);
  fs::create_directories(d.path() / "frames");
  int frame = 0;
  for (const std::string& n : names) {
    const Image8 sharp = half(read_image(statue + "/images/" + n), 500, 328);
    const Image8 blurred = box_blur(sharp, 3);
    for (const Image8* img : {&blurred, &sharp, &blurred}) {
      char f[64];
      std::snprintf(f, sizeof f, "f_%04d.png", frame++);
      write_file(d.str("frames/") + f, encode_png(*img));
    }
  }
  const std::string clip = d.str("clip.mp4");
  const std::string ffmpeg = "ffmpeg -nostdin -v error -framerate 6 -i '" + d.str("frames/f_%04d.png") +
                             "' -c:v libx264 -crf 16 -pix_fmt yuv420p '" + clip + "'";
  ASSERT_EQ(std::system(ffmpeg.c_str()), 0) << ffmpeg;

  CommandResult r = run_glint("sfm '" + clip + "' -o '" + d.str("ds") + "' --frames 10" + kFast);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("kept 10 of 30 frames"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("sfm frames"), std::string::npos) << r.err;
  // The sharp frame of each window of three: 1, 4, 7, ...
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(d.path() / "ds" / "images")) kept.push_back(e.path().filename().string());
  std::sort(kept.begin(), kept.end());
  std::vector<std::string> expected;
  std::map<std::string, std::string> photo_of;  // frame stem -> photo stem
  for (int i = 0; i < 10; ++i) {
    char f[32];
    std::snprintf(f, sizeof f, "frame_%06d", 3 * i + 1);
    expected.push_back(std::string(f) + ".jpg");
    photo_of[f] = fs::path(names[static_cast<std::size_t>(i)]).stem().string();
  }
  EXPECT_EQ(kept, expected);

  const ColmapModel sfm = read_colmap_model(d.str("ds/sparse/0"));
  EXPECT_GE(sfm.images.size(), 9u) << "at least 90 % of 10 registered";
  const CentreCheck c = compare_centres(sfm, read_colmap_model(statue + "/sparse/0"), photo_of);
  EXPECT_EQ(c.matched, sfm.images.size());
  std::printf("statue clip, 10 frames: %zu registered, camera centre error after alignment: worst %.4f, RMS %.4f "
              "of the distance to the scene\n", sfm.images.size(), c.worst, c.rms);
  EXPECT_LT(c.worst, 0.025);
  EXPECT_LT(c.rms, 0.012);
}

TEST(SfmCli, BadInputIsOneLineAndExitTwo) {
  GLINT_REQUIRE_TOOLS();
  TempDir d;
  const auto one_line_exit_2 = [](const CommandResult& r, const std::string& needle, const std::string& what) {
    EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
    EXPECT_EQ(line_count(r.err), 1) << what << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << what << ": " << r.err;
  };
  fs::create_directories(d.path() / "empty");
  write_file(d.str("empty/readme.txt"), "no pictures here");
  one_line_exit_2(run_glint("sfm '" + d.str("empty") + "' -o '" + d.str("o1") + "'"), "no images", "empty folder");

  write_file(d.str("clip.mp4"), "this is not a video");
  one_line_exit_2(run_glint("sfm '" + d.str("clip.mp4") + "' -o '" + d.str("o2") + "'"), "not a readable video",
                  "text as .mp4");
  one_line_exit_2(run_glint("train '" + d.str("clip.mp4") + "' -o '" + d.str("o3") + "' -q"), "not a readable video",
                  "train on text as .mp4");

  // Four unrelated noise images: nothing to match.
  fs::create_directories(d.path() / "noise");
  for (int i = 0; i < 4; ++i) {
    Image8 img;
    img.width = img.height = 160;
    img.channels = 3;
    img.data.resize(160 * 160 * 3);
    std::uint32_t s = 12345u + static_cast<std::uint32_t>(i) * 7919u;
    for (auto& p : img.data) p = static_cast<std::uint8_t>((s = s * 1664525u + 1013904223u) >> 24);
    write_file(d.str("noise/n" + std::to_string(i) + ".png"), encode_png(img));
  }
  CommandResult r = run_glint("sfm '" + d.str("noise") + "' -o '" + d.str("o4") + "' -q");
  one_line_exit_2(r, "need more overlap", "unrelated images");

  // COLMAP missing: the apt command. The output folder is not touched.
  fs::create_directories(d.path() / "bin");
  r = run_glint("sfm '" + d.str("noise") + "' -o '" + d.str("o5") + "'", "PATH='" + d.str("bin") + "'");
  one_line_exit_2(r, "sudo apt-get install colmap", "no colmap on PATH");
  EXPECT_FALSE(fs::exists(d.path() / "o5"));

  // An output folder holding something else is never replaced.
  fs::create_directories(d.path() / "mine");
  write_file(d.str("mine/keep.txt"), "user data");
  one_line_exit_2(run_glint("sfm '" + d.str("noise") + "' -o '" + d.str("mine") + "' --redo-sfm"),
                  "holds no glint sfm result", "foreign output folder");
  EXPECT_EQ(read_file(d.str("mine/keep.txt")), "user data");

  // SfM flags on a dataset that has poses.
  one_line_exit_2(run_glint("train '" + std::string(GLINT_SOURCE_DIR) + "/data/demo' -o '" + d.str("o6") +
                            "' --frames 20 --steps 1"),
                  "--frames", "--frames on a posed dataset");
}
