// The pieces of capture/ that need no external program: reading COLMAP's progress lines and
// statistics, the camera model choice, frame sharpness and the window choice, EXIF, what
// counts as a capture, and the similarity alignment the SfM tests use.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "glint/capture/camera_choice.h"
#include "glint/capture/capture_input.h"
#include "glint/capture/colmap_output.h"
#include "glint/capture/external_tool.h"
#include "glint/capture/frame_choice.h"
#include "glint/core/error.h"
#include "glint/io/exif.h"
#include "support/similarity_align.h"
#include "test_support.h"

using namespace glint;
using namespace glint::capture;
using namespace glint::test;

TEST(ColmapOutput, ProgressLines) {
  auto e = parse_extracted("Processed file [12/67]");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->done, 12);
  EXPECT_EQ(e->total, 67);
  EXPECT_FALSE(parse_extracted("  Name:            DSC_5283.jpg"));
  EXPECT_FALSE(parse_extracted("Processed file [x/67]"));

  auto b = parse_matched("Matching block [2/7, 3/7] in 16.307s");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->done, 10);
  EXPECT_EQ(b->total, 49);
  auto last = parse_matched("Matching block [7/7, 7/7] in 1.0s");
  ASSERT_TRUE(last);
  EXPECT_EQ(last->done, last->total);
  auto s = parse_matched("Matching image [5/12] in 0.561s");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->done, 5);
  EXPECT_EQ(s->total, 12);
  EXPECT_FALSE(parse_matched("Matching block [0/7, 3/7]"));

  EXPECT_EQ(parse_registered("Initializing with image pair #13 and #15"), 2);
  EXPECT_EQ(parse_registered("Registering image #14 (5)"), 5);
  EXPECT_FALSE(parse_registered("Retriangulation"));
  EXPECT_TRUE(starts_new_model("Finding good initial image pair"));
}

TEST(ColmapOutput, ModelAnalyzerStatistics) {
  ModelStats st;
  for (const char* line : {"Cameras: 1", "Images: 23", "Registered images: 21", "Points: 2180", "Observations: 9913",
                           "Mean track length: 4.547248", "Mean observations per image: 431.000000",
                           "I1205 12:00:01.123 model.cc:99] Mean reprojection error: 0.413301px"})
    parse_model_stat(line, st);
  EXPECT_EQ(st.cameras, 1);
  EXPECT_EQ(st.images, 23);
  EXPECT_EQ(st.registered, 21);
  EXPECT_EQ(st.points, 2180);
  EXPECT_EQ(st.observations, 9913);
  EXPECT_NEAR(st.mean_track_length, 4.547248, 1e-9);
  EXPECT_NEAR(st.mean_reprojection_px, 0.413301, 1e-9);
  EXPECT_FALSE(parse_model_stat("Elapsed time: 0.001 [minutes]", st));
}

TEST(ExternalTool, LastMeaningfulLineSkipsBannersAndGlogPrefixes) {
  EXPECT_EQ(last_meaningful_line({"F1205 10:11:12.345678 12345 reconstruction.cc:812] Check failed: x > 0",
                                  "*** Check failure stack trace: ***", "    @     0x7f  google::LogMessage::Fail()",
                                  "==========", ""}),
            "Check failed: x > 0");
  EXPECT_EQ(last_meaningful_line({}), "(no output)");
}

TEST(CameraChoice, FromExifAndSize) {
  CameraChoice phone = choose_camera({4032, 3024, 40, false, 26}, "");
  EXPECT_EQ(phone.model, "RADIAL");
  // 26 mm on the 43.27 mm diagonal of 35 mm film, scaled to the 5040-pixel diagonal.
  EXPECT_NEAR(phone.focal_px, 26 / std::hypot(36.0, 24.0) * 5040, 1e-6);
  EXPECT_EQ(choose_camera({4000, 3000, 40, false, 14}, "").model, "OPENCV");
  EXPECT_EQ(choose_camera({4000, 3000, 8, false, 0}, "").model, "SIMPLE_RADIAL");  // few photos
  CameraChoice video = choose_camera({1080, 1920, 150, true, 0}, "");
  EXPECT_EQ(video.model, "SIMPLE_RADIAL");
  EXPECT_EQ(video.focal_px, 0);
  EXPECT_NE(video.reason.find("video"), std::string::npos) << video.reason;
  EXPECT_EQ(choose_camera({1080, 1920, 150, true, 0}, "PINHOLE").model, "PINHOLE");
  EXPECT_THROW(choose_camera({1080, 1920, 150, true, 0}, "FISHEYE"), Error);
  EXPECT_EQ(camera_params("SIMPLE_RADIAL", 1000, 640, 480), "1000,320,240,0");
  EXPECT_EQ(camera_params("OPENCV", 1000, 640, 480), "1000,1000,320,240,0,0,0,0");
  EXPECT_EQ(camera_params("RADIAL", 0, 640, 480), "");
}

namespace {
double slow_laplacian_variance(const std::vector<std::uint8_t>& g, int w, int h) {
  std::vector<double> v;
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) {
      auto at = [&](int xx, int yy) { return static_cast<double>(g[static_cast<std::size_t>(yy * w + xx)]); };
      v.push_back(at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4 * at(x, y));
    }
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return var / static_cast<double>(v.size());
}
}  // namespace

TEST(FrameChoice, LaplacianVarianceMatchesTheDefinitionAndFallsWithBlur) {
  const int w = 37, h = 23;
  std::mt19937 rng(3);
  std::vector<std::uint8_t> sharp(static_cast<std::size_t>(w * h));
  for (auto& p : sharp) p = static_cast<std::uint8_t>(rng() % 256);
  EXPECT_NEAR(laplacian_variance(sharp.data(), w, h), slow_laplacian_variance(sharp, w, h),
              1e-9 * slow_laplacian_variance(sharp, w, h));
  // A 3x3 box blur of the same noise.
  std::vector<std::uint8_t> blurred(sharp.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int s = 0, n = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h) {
            s += sharp[static_cast<std::size_t>((y + dy) * w + x + dx)];
            ++n;
          }
      blurred[static_cast<std::size_t>(y * w + x)] = static_cast<std::uint8_t>(s / n);
    }
  EXPECT_LT(laplacian_variance(blurred.data(), w, h), 0.2 * laplacian_variance(sharp.data(), w, h));
  const std::vector<std::uint8_t> flat(static_cast<std::size_t>(w * h), 128);
  EXPECT_EQ(laplacian_variance(flat.data(), w, h), 0.0);
  EXPECT_EQ(laplacian_variance(flat.data(), 2, 2), 0.0);
}

TEST(FrameChoice, SharpestOfEachWindow) {
  //                         window 0 | window 1 | window 2  (9 frames, 3 windows)
  const std::vector<double> s{1, 5, 2, 7, 7, 1, 0, 0, 3};
  EXPECT_EQ(sharpest_per_window(s, 3), (std::vector<long>{1, 3, 8}));  // ties: the earliest
  EXPECT_EQ(sharpest_per_window(s, 20), (std::vector<long>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(sharpest_per_window(s, 1), (std::vector<long>{3}));
  // Uneven windows still cover every frame once and keep exactly n.
  std::vector<double> ramp(100);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<double>(i % 7);
  const auto kept = sharpest_per_window(ramp, 30);
  EXPECT_EQ(kept.size(), 30u);
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_LT(kept[i - 1], kept[i]);
  EXPECT_TRUE(sharpest_per_window({}, 5).empty());
}

namespace {
// A JPEG header with an APP1 EXIF block (big-endian TIFF): Make, and an Exif IFD with
// FocalLength 4.25 mm (rational) and FocalLengthIn35mmFilm 26.
std::string jpeg_with_exif() {
  std::string t;  // TIFF
  auto u16 = [&](unsigned v) { t += char(v >> 8), t += char(v & 255); };
  auto u32 = [&](unsigned v) { u16(v >> 16), u16(v & 0xffff); };
  t += "MM";
  u16(42);
  u32(8);  // IFD0 at 8
  u16(2);  // two entries
  u16(0x010F), u16(2), u32(6), u32(8 + 2 + 24 + 4);  // Make: "Phone\0" after IFD0
  u16(0x8769), u16(4), u32(1), u32(8 + 2 + 24 + 4 + 6);  // Exif IFD offset
  u32(0);  // next IFD
  t += std::string("Phone\0", 6);
  // Exif IFD at 44: two entries, then the rational's value.
  u16(2);
  u16(0x920A), u16(5), u32(1), u32(44 + 2 + 24 + 4);
  u16(0xA405), u16(3), u32(1), u16(26), u16(0);
  u32(0);
  u32(425), u32(100);
  std::string app1 = std::string("Exif\0\0", 6) + t;
  std::string j = "\xFF\xD8";
  j += "\xFF\xE1";
  j += char((app1.size() + 2) >> 8), j += char((app1.size() + 2) & 255);
  j += app1;
  j += "\xFF\xD9";
  return j;
}
}  // namespace

TEST(Exif, FocalLengthsAndMake) {
  const ExifInfo e = parse_exif(jpeg_with_exif());
  EXPECT_EQ(e.make, "Phone");
  EXPECT_NEAR(e.focal_mm, 4.25, 1e-12);
  EXPECT_EQ(e.focal_35mm, 26);
  // Damaged or missing blocks give nothing, never a crash: every truncation of the file.
  const std::string j = jpeg_with_exif();
  for (std::size_t n = 0; n < j.size(); ++n) (void)parse_exif(j.substr(0, n));
  EXPECT_FALSE(parse_exif("\x89PNG\r\n").any());
  std::string bad = j;
  bad[j.find("MM") + 7] = '\x7f';  // IFD0 offset far past the end
  EXPECT_FALSE(parse_exif(bad).any());
}

TEST(CaptureInput, PhotosVideosAndDatasets) {
  TempDir d;
  std::filesystem::create_directories(d.path() / "photos");
  write_file(d.str("photos/a.JPG"), "x");
  write_file(d.str("photos/b.png"), "x");
  write_file(d.str("photos/c.heic"), "x");
  write_file(d.str("photos/notes.txt"), "x");
  EXPECT_TRUE(is_capture(d.str("photos")));
  const CaptureInput in = open_capture(d.str("photos"));
  EXPECT_EQ(in.kind, CaptureKind::kPhotos);
  EXPECT_EQ(in.images, (std::vector<std::string>{"a.JPG", "b.png"}));
  EXPECT_EQ(in.skipped, (std::vector<std::string>{"c.heic"}));

  // images/ inside a folder without poses
  std::filesystem::create_directories(d.path() / "capture" / "images");
  write_file(d.str("capture/images/x.jpg"), "x");
  EXPECT_TRUE(is_capture(d.str("capture")));
  EXPECT_EQ(open_capture(d.str("capture")).path, d.str("capture/images"));

  // A dataset is not a capture.
  EXPECT_FALSE(is_capture(std::string(GLINT_SOURCE_DIR) + "/data/demo"));
  EXPECT_FALSE(is_capture(std::string(GLINT_SOURCE_DIR) + "/data/demo/transforms_train.json"));

  write_file(d.str("clip.MOV"), "x");
  EXPECT_TRUE(is_capture(d.str("clip.MOV")));
  EXPECT_EQ(open_capture(d.str("clip.MOV")).kind, CaptureKind::kVideo);
  EXPECT_TRUE(has_video_extension("a/b.mp4"));
  EXPECT_FALSE(has_video_extension("a/b.jpg"));

  std::filesystem::create_directories(d.path() / "empty");
  write_file(d.str("empty/c.heic"), "x");
  try {
    open_capture(d.str("empty"));
    ADD_FAILURE() << "a folder without JPEG/PNG images was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no images"), std::string::npos) << m;
    EXPECT_NE(m.find("c.heic"), std::string::npos) << m;
  }
  EXPECT_THROW(open_capture(d.str("missing")), Error);
  EXPECT_THROW(open_capture(d.str("photos/a.JPG")), Error);  // one image
}

TEST(SimilarityAlign, RecoversAKnownTransform) {
  std::mt19937 rng(7);
  std::normal_distribution<double> nd;
  std::vector<Vec3d> a, b;
  Similarity truth;
  truth.scale = 3.7;
  truth.R = quat_to_rotmat(Quatd{0.3, -0.5, 0.7, 0.2});
  truth.t = {1, -2, 5};
  for (int i = 0; i < 20; ++i) {
    a.push_back({nd(rng), nd(rng), nd(rng)});
    b.push_back(truth.apply(a.back()));
  }
  const Similarity s = align_similarity(a, b);
  EXPECT_NEAR(s.scale, truth.scale, 1e-9);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_LT(norm(s.apply(a[i]) - b[i]), 1e-9);
}
