// The reference scorer is tools/score_relight.py, but this machine's python3 has neither
// numpy nor PIL (checked with `python3 -c 'import numpy, PIL'`), so the reference here is
// an independent straightforward double-precision reimplementation of that script's
// arithmetic, written from its text: composite rgb*a + bg*(1-a) on code/255, MSE over all
// values, masked MSE over GT alpha > 0.5 pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/image_io.h"
#include "glint/io/pfm.h"
#include "glint/light/relight_score.h"
#include "test_support.h"

using namespace glint;
namespace fs = std::filesystem;

namespace {
struct RefScore {
  double full, masked;
};
RefScore reference_psnr(const Image8& p, const Image8& g) {
  double se = 0, sem = 0;
  long n = 0, nm = 0;
  for (int y = 0; y < g.height; ++y)
    for (int x = 0; x < g.width; ++x) {
      double pa = p.channels == 4 ? p.row(y)[x * 4 + 3] / 255.0 : 1.0;
      double ga = g.row(y)[x * 4 + 3] / 255.0;
      for (int c = 0; c < 3; ++c) {
        double pv = p.row(y)[x * p.channels + c] / 255.0 * pa;
        double gv = g.row(y)[x * 4 + c] / 255.0 * ga;
        se += (pv - gv) * (pv - gv);
        ++n;
        if (ga > 0.5) {
          sem += (pv - gv) * (pv - gv);
          ++nm;
        }
      }
    }
  return {10 * std::log10(n / se), 10 * std::log10(nm / sem)};
}
}  // namespace

TEST(LightRelightScore, CompositesLikeTheScript) {
  Image8 a{1, 1, 4, {255, 128, 0, 128}};
  auto v = composite_srgb(a, 0.0);
  EXPECT_DOUBLE_EQ(v[0], 128 / 255.0);
  EXPECT_DOUBLE_EQ(v[1], 128 / 255.0 * 128 / 255.0);
  auto w = composite_srgb(a, 1.0);
  EXPECT_DOUBLE_EQ(w[2], 1 - 128 / 255.0);
  Image8 grey{1, 1, 1, {51}};
  EXPECT_DOUBLE_EQ(composite_srgb(grey, 0.0)[2], 0.2);
  EXPECT_TRUE(std::isinf(psnr(v, v)));
  Image8 b{2, 1, 3, {0, 0, 0, 0, 0, 0}};
  EXPECT_THROW(score_view(a, b), Error);
}

TEST(LightRelightScore, AgreesWithTheReferenceOnTheDataset) {
  GLINT_REQUIRE_SHARED(root, "relight");
  // Every setup of lights.json and lights_extra.json.
  for (const std::string setup : {"point", "sun", "mixed", "spot", "env"}) {
    SCOPED_TRACE(setup);
    test::TempDir tmp;
    // Prediction: the shadow-free render, with views 1.. perturbed differently (alpha
    // dropped to RGB over black on one, colour shifted on another) so the scorer's RGB and
    // RGBA paths are both exercised.
    fs::create_directories(tmp.path() / setup);
    std::vector<RefScore> ref;
    for (int i = 0; i < 8; ++i) {
      const std::string name = "r_" + std::to_string(i) + ".png";
      Image8 p = read_image(root + "/relit/" + setup + "_noshadow/" + name);
      if (i == 1) {
        Image8 rgb{p.width, p.height, 3, {}};
        for (int k = 0; k < p.width * p.height; ++k)
          for (int c = 0; c < 3; ++c)
            rgb.data.push_back(static_cast<std::uint8_t>(std::lround(p.data[k * 4 + c] * (p.data[k * 4 + 3] / 255.0))));
        p = rgb;
      } else if (i == 2) {
        for (std::size_t k = 0; k < p.data.size(); ++k)
          if (k % 4 == 0) p.data[k] = static_cast<std::uint8_t>(std::min(255, p.data[k] + 9));
      }
      write_file_atomic(tmp.str(setup + "/" + name), encode_png(p));
      ref.push_back(reference_psnr(p, read_image(root + "/relit/" + setup + "/" + name)));
    }
    RelightScore s = score_relight(root, tmp.str(), {setup});
    ASSERT_EQ(s.setups.size(), 1u);
    double mean_full = 0, mean_masked = 0;
    for (int i = 0; i < 8; ++i) {
      EXPECT_NEAR(s.setups[0].per_view[i], ref[i].full, 1e-3) << i;
      mean_full += ref[i].full / 8;
      mean_masked += ref[i].masked / 8;
    }
    EXPECT_NEAR(s.setups[0].psnr, mean_full, 1e-3);
    EXPECT_NEAR(s.setups[0].psnr_masked, mean_masked, 1e-3);
    EXPECT_NEAR(s.mean_psnr, mean_full, 1e-3);
    ASSERT_TRUE(s.setups[0].psnr_vs_noshadow.has_value());
    EXPECT_GT(*s.setups[0].psnr_vs_noshadow, 40.0);  // mostly the GT itself
    // The shadow-free truth scores in the range of the README's no-shadow oracle (22-28 dB).
    EXPECT_GT(s.setups[0].psnr, 20.0);
    EXPECT_LT(s.setups[0].psnr, 35.0);
    EXPECT_NE(relight_score_json(s).find("\"mean_psnr\""), std::string::npos);
    EXPECT_THROW(score_relight(root, tmp.str(), {"sun_x"}), Error);  // missing prediction
  }
}

TEST(LightRelightScore, NormalErrorOnGroundTruth) {
  GLINT_REQUIRE_SHARED(root, "relight/gt");
  ImageF gt = read_pfm(root + "/normal_0.pfm");
  Image8 mask = read_image(root + "/mask_0.png");
  NormalError same = normal_angle_error(gt, gt, mask);
  EXPECT_GT(same.pixels, 5000);
  EXPECT_LT(same.mean_deg, 0.05);
  // Rotating every predicted normal by 10 degrees about x gives a 10 degree error... at
  // most, and exactly 10 for normals perpendicular to x.
  ImageF rot = gt;
  const double a = 10 * std::numbers::pi / 180;
  for (std::size_t i = 0; i < rot.data.size(); i += 3) {
    float y = gt.data[i + 1], z = gt.data[i + 2];
    rot.data[i + 1] = float(std::cos(a) * y - std::sin(a) * z);
    rot.data[i + 2] = float(std::sin(a) * y + std::cos(a) * z);
  }
  NormalError e = normal_angle_error(rot, gt, mask);
  EXPECT_EQ(e.pixels, same.pixels);
  EXPECT_LE(e.mean_deg, 10.0 + 1e-3);
  EXPECT_GT(e.mean_deg, 5.0);
  ImageF zero(gt.width, gt.height, 3);
  NormalError z = normal_angle_error(zero, gt, mask, 2);  // 5x5 neighbourhood
  EXPECT_EQ(z.pixels, 0);
  EXPECT_GT(z.missing, 0);
  EXPECT_LT(z.missing, same.pixels);
}
