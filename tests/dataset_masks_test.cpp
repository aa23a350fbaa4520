// Masks as datasets carry them: a masks folder beside the images (NAME.png or
// <NAME without extension>.png), --masks, --no-masks, --alpha-mask; the mask loaded and
// resized with its image; every bad mask a one-line error naming its file; and a training
// run whose masks hide a distractor painted into every training image ends with a model
// that does not draw it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "support/scene_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;
namespace fs = std::filesystem;

namespace {

// A mask of the given size: 0 on the left `zero_cols` columns, 255 elsewhere.
Image8 left_mask(int w, int h, int zero_cols, int channels = 1) {
  Image8 m;
  m.width = w;
  m.height = h;
  m.channels = channels;
  m.data.assign(static_cast<std::size_t>(w) * h * channels, 255);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < zero_cols; ++x)
      for (int c = 0; c < channels; ++c) m.row(y)[x * channels + c] = 0;
  return m;
}

// 'path' for the shell (built by append: GCC 12 warns, wrongly, on "'" + string here).
std::string quoted(const std::string& path) { return std::string(1, '\'').append(path).append(1, '\''); }

void expect_info_error(const std::string& args, const std::string& file_part, const std::string& problem) {
  CommandResult r = run_glint("info " + args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_EQ(r.err.rfind("glint: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(file_part), std::string::npos) << "file not named: " << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << "problem not stated: " << r.err;
}

}  // namespace

TEST(DatasetMasks, FoundBesideTheImagesByEitherName) {
  TempDir d;
  write_colmap_dataset(d.str(), 4);
  fs::create_directories(d.str("masks"));
  write_file(d.str("masks/img_0.png.png"), encode_png(left_mask(32, 24, 8)));
  write_file(d.str("masks/img_1.png"), encode_png(left_mask(32, 24, 16, 3)));  // colour: the largest of R, G, B
  DatasetOptions o;
  o.test_every = 0;
  o.downscale = 2;
  const Dataset data = load_dataset(d.str(), o);
  EXPECT_EQ(data.masked_views(), 2u);
  EXPECT_EQ(data.masks, fs::path(d.str("masks")).lexically_normal().string());
  ImageCache cache(data, data.train, std::size_t{1} << 20);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto mask = cache.get_mask(i);
    ASSERT_EQ(mask != nullptr, i < 2) << i;
    if (!mask) continue;
    ASSERT_EQ(mask->width, 16);  // resized with the image
    ASSERT_EQ(mask->channels, 1);
    const int zero = i == 0 ? 4 : 8;
    for (int y = 0; y < mask->height; ++y)
      for (int x = 0; x < mask->width; ++x) EXPECT_EQ(mask->row(y)[x], x < zero ? 0 : 255) << i << " " << x;
  }
  // --no-masks, and a folder named with --masks
  o.no_masks = true;
  EXPECT_EQ(load_dataset(d.str(), o).masked_views(), 0u);
  o.no_masks = false;
  fs::rename(d.str("masks"), d.str("elsewhere"));
  EXPECT_EQ(load_dataset(d.str(), o).masked_views(), 0u);  // no default folder: no masks
  o.masks_dir = d.str("elsewhere");
  EXPECT_EQ(load_dataset(d.str(), o).masked_views(), 2u);
  CommandResult r = run_glint("info '" + d.str() + "' --masks '" + d.str("elsewhere") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("masks        2 of 4 views"), std::string::npos) << r.out;
}

TEST(DatasetMasks, AlphaMaskKeepsTheColourAndUsesTheAlpha) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  Image8 rgba = to_rgba(read_image(d.str("images/img_1.png")));
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 10; ++x) rgba.row(y)[x * 4 + 3] = 0;
  write_file(d.str("images/img_1.png"), encode_png(rgba));
  DatasetOptions o;
  o.test_every = 0;
  o.alpha_mask = true;
  const Dataset data = load_dataset(d.str(), o);
  EXPECT_EQ(data.masked_views(), 1u);
  EXPECT_EQ(data.masks, "alpha");
  const ViewPixels px = data.load_view(data.train[1]);
  ASSERT_EQ(px.image.channels, 3);
  EXPECT_EQ(px.image.data, drop_alpha(rgba).data);  // not composited over the background
  EXPECT_EQ(px.mask.data, channel_plane(rgba, 3).data);
  expect_info_error(quoted(d.str()) + " --alpha-mask --masks " + quoted(d.str()), "--alpha-mask", "one or the other");
}

TEST(DatasetMasks, AMaskMadeInMemoryMultipliesIntoTheFileMaskAndIsCroppedWithTheView) {
  TempDir d;
  write_colmap_dataset(d.str(), 2);
  fs::create_directories(d.str("masks"));
  write_file(d.str("masks/img_0.png"), encode_png(left_mask(32, 24, 8)));  // 0 on columns 0-7
  DatasetOptions o;
  o.test_every = 0;
  Dataset data = load_dataset(d.str(), o);
  // 128 on columns 0-15, 255 elsewhere, at the camera's size
  Image8 m = left_mask(32, 24, 16);
  for (std::uint8_t& v : m.data) v = v == 0 ? 128 : 255;
  for (View& v : data.train) v.mask_in_memory = std::make_shared<const Image8>(m);
  EXPECT_EQ(data.masked_views(), 2u);
  const ViewPixels with_file = data.load_view(data.train[0]), alone = data.load_view(data.train[1]);
  for (int x = 0; x < 32; ++x) {
    EXPECT_EQ(with_file.mask.row(5)[x], x < 8 ? 0 : x < 16 ? 128 : 255) << x;
    EXPECT_EQ(alone.mask.row(5)[x], x < 16 ? 128 : 255) << x;
  }
  const ViewPixels cropped = data.load_view(crop_view(data.train[1], 12, 4, 10, 8));
  ASSERT_EQ(cropped.mask.width, 10);
  for (int x = 0; x < 10; ++x) EXPECT_EQ(cropped.mask.row(0)[x], 12 + x < 16 ? 128 : 255) << x;
  // at the camera's size, also when the picture is loaded smaller (--downscale)
  o.downscale = 2;
  Dataset half = load_dataset(d.str(), o);
  half.train[1].mask_in_memory = std::make_shared<const Image8>(left_mask(16, 12, 4));
  const ViewPixels small = half.load_view(half.train[1]);
  ASSERT_EQ(small.mask.width, 16);
  EXPECT_EQ(small.mask.row(3)[3], 0);
  EXPECT_EQ(small.mask.row(3)[4], 255);
  // the wrong size: one line naming the image
  data.train[1].mask_in_memory = std::make_shared<const Image8>(left_mask(16, 12, 2));
  try {
    data.load_view(data.train[1]);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("img_1.png"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("16x12x1, not 32x24x1"), std::string::npos) << e.what();
  }
}

TEST(DatasetMasks, BadMasksAreOneLineErrorsNamingTheFile) {
  TempDir d;
  write_colmap_dataset(d.str(), 3);
  const std::string root = quoted(d.str());
  fs::create_directories(d.str("masks"));
  write_file(d.str("masks/img_2.png"), encode_png(left_mask(10, 10, 2)));
  expect_info_error(root, d.str("masks/img_2.png"), "mask is 10x10 but its image img_2.png is 32x24");
  write_file(d.str("masks/img_2.png"), "not a png at all");
  expect_info_error(root, d.str("masks/img_2.png"), "");
  fs::remove(d.str("masks/img_2.png"));
  write_file(d.str("masks/other.png"), encode_png(left_mask(32, 24, 2)));
  expect_info_error(root, d.str("masks"), "no mask in this masks folder matches an image");
  expect_info_error(root + " --masks '" + d.str("nowhere") + "'", d.str("nowhere"), "masks folder not found");
  expect_info_error(root + " --no-masks --alpha-mask", d.str(), "no image of the dataset has an alpha channel");
  // a mask that is a uniformly scaled copy of its image's size is taken (and resampled)
  write_file(d.str("masks/img_0.png"), encode_png(left_mask(64, 48, 16)));
  CommandResult r = run_glint("info " + root);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A red block painted into the same place of every training image of the demo scene (a
// sticker on the lens, say), hidden by masks (masks/train/r_N.png, found by default): the
// masked run renders what lies behind the block, the unmasked run renders the block.
TEST(DatasetMasks, MaskedDistractorLeavesTheModel) {
  TempDir d;
  const fs::path demo = fs::path(GLINT_SOURCE_DIR) / "data/demo";
  for (const char* f : {"transforms_train.json", "transforms_test.json", "points3d.ply"})
    fs::copy_file(demo / f, d.path() / f);
  fs::create_directories(d.path() / "train");
  fs::create_directories(d.path() / "masks/train");
  fs::copy(demo / "test", d.path() / "test");
  // one test view masked too: the evaluation scores it on what its mask keeps
  fs::create_directories(d.path() / "masks/test");
  write_file((d.path() / "masks/test/r_0.png").string(), encode_png(left_mask(200, 200, 40)));
  // the block: source pixels [72, 128) x [72, 128) of the 200x200 views, over the object
  auto in_block = [](int x, int y) { return x >= 72 && x < 128 && y >= 72 && y < 128; };
  Image8 mask = left_mask(200, 200, 0);
  for (int y = 0; y < 200; ++y)
    for (int x = 0; x < 200; ++x)
      if (in_block(x, y)) mask.row(y)[x] = 0;
  const std::string mask_png = encode_png(mask);
  for (const auto& e : fs::directory_iterator(demo / "train")) {
    Image8 img = to_rgba(read_image(e.path().string()));
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        if (in_block(x, y)) {
          std::uint8_t* p = img.row(y) + x * 4;
          p[0] = 255, p[1] = p[2] = 0, p[3] = 255;
        }
    write_file((d.path() / "train" / e.path().filename()).string(), encode_png(img));
    write_file((d.path() / "masks/train" / e.path().filename()).string(), mask_png);
  }
  const std::string common = " --steps 600 --schedule-steps 600 --downscale 8 --eval-every 0 -q --threads 1";
  CommandResult r = run_glint("train '" + d.str() + "' -o '" + d.str("masked") + "'" + common);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(unmasked pixels only)"), std::string::npos) << r.out;
  r = run_glint("train '" + d.str() + "' -o '" + d.str("open") + "' --no-masks" + common);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // both models rendered from ten training cameras (every sixth of the run's cameras.json);
  // the block's pixels against the clean images (the demo's own, over its white
  // background) and against red
  const nlohmann::json all = nlohmann::json::parse(read_file(d.str("masked/cameras.json")));
  nlohmann::json cams = nlohmann::json::array();
  for (std::size_t i = 0; i < 60; i += 6) cams.push_back(all[i]);
  write_file(d.str("cams10.json"), cams.dump());
  double err_masked = 0, err_open = 0, red_open = 0;
  for (const char* run : {"masked", "open"}) {
    r = run_glint("render '" + d.str(std::string(run) + "/scene.ply") + "' '" + d.str("cams10.json") + "' -o '" +
                  d.str(std::string(run) + "/train") + "' --background white");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  int n = 0;
  for (const auto& cam : cams) {
    const std::string name = cam["img_name"].get<std::string>() + ".png";
    const Image8 clean = resize_area(to_rgb(read_image((demo / "train" / name).string()), {1, 1, 1}), 25, 25);
    const Image8 masked = read_image(d.str("masked/train/" + name));
    const Image8 open = read_image(d.str("open/train/" + name));
    for (int y = 10; y < 15; ++y)  // the block's pixels at 1/8: [9, 16)
      for (int x = 10; x < 15; ++x)
        for (int c = 0; c < 3; ++c) {
          const double want = clean.row(y)[x * 3 + c] / 255.0;
          err_masked += std::abs(masked.row(y)[x * 3 + c] / 255.0 - want);
          err_open += std::abs(open.row(y)[x * 3 + c] / 255.0 - want);
          red_open += std::abs(open.row(y)[x * 3 + c] / 255.0 - (c == 0 ? 1.0 : 0.0));
          ++n;
        }
  }
  err_masked /= n;
  err_open /= n;
  red_open /= n;
  std::printf("block pixels, mean |render - clean image|: masked %.4f, unmasked %.4f; unmasked |render - red| %.4f\n",
              err_masked, err_open, red_open);
  EXPECT_LT(err_masked, 0.1);
  EXPECT_LT(red_open, 0.15);         // the unmasked model draws the block
  EXPECT_GT(err_open, 4 * err_masked);
  const auto eval = nlohmann::json::parse(read_file(d.str("masked/eval.json")));
  EXPECT_EQ(eval["test"]["scored_pixels"], "unmasked only");
  EXPECT_EQ(eval["test"]["masked_views"], 1);
  EXPECT_NEAR(eval["test"]["views"][0]["mask_coverage"].get<double>(), 0.8, 1e-9);
}
