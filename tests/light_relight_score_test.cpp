// Two references: the dataset's own tools/score_relight.py, run with Debian's python3 where
// scripts/install-deps.sh installed numpy and PIL, and, so that the arithmetic is checked
// on any machine, an independent straightforward double-precision reimplementation of that
// script, written from its text: composite rgb*a + bg*(1-a) on code/255, MSE over all
// values, masked MSE over GT alpha > 0.5 pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

namespace {
// Writes PRED/<setup>/r_<i>.png: the shadow-free render, with views 1 and 2 perturbed
// differently (alpha dropped to RGB over black on one, colour shifted on another) so the
// scorer's RGB and RGBA paths are both exercised. `nudge` also raises the blue of every
// fifth pixel by one code on every view, so that no view equals the shadow-free render (an
// infinite PSNR, which the script writes as the non-JSON literal Infinity). Returns the
// predictions in view order.
std::vector<Image8> write_predictions(const std::string& root, const test::TempDir& pred,
                                      const std::string& setup, bool nudge = false) {
  fs::create_directories(pred.path() / setup);
  std::vector<Image8> out;
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
    if (nudge)
      for (std::size_t k = 2; k < p.data.size(); k += 5 * p.channels) p.data[k] = static_cast<std::uint8_t>(std::min(255, p.data[k] + 1));
    write_file_atomic(pred.str(setup + "/" + name), encode_png(p));
    out.push_back(std::move(p));
  }
  return out;
}

const std::vector<std::string> kAllSetups = {"point", "sun", "mixed", "spot", "env"};
}  // namespace

TEST(LightRelightScore, AgreesWithTheReferenceOnTheDataset) {
  GLINT_REQUIRE_SHARED(root, "relight");
  // Every setup of lights.json and lights_extra.json.
  for (const std::string& setup : kAllSetups) {
    SCOPED_TRACE(setup);
    test::TempDir tmp;
    std::vector<Image8> pred = write_predictions(root, tmp, setup);
    std::vector<RefScore> ref;
    for (int i = 0; i < 8; ++i)
      ref.push_back(reference_psnr(pred[i], read_image(root + "/relit/" + setup + "/r_" + std::to_string(i) + ".png")));
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

// The dataset's own scorer, run as the dataset ships it, on all five setups at once: the
// figures glint relight --score prints are the ones a user of the benchmark reports.
TEST(LightRelightScore, AgreesWithTheDatasetsScript) {
  GLINT_REQUIRE_SHARED(root, "relight");
  // Debian's interpreter, where scripts/install-deps.sh installs numpy and PIL.
  const std::string python = "/usr/bin/python3";
  if (std::system((python + " -c 'import numpy, PIL' >/dev/null 2>&1").c_str()) != 0) {
    if (std::getenv("CI")) FAIL() << python << " lacks numpy or PIL under CI (scripts/install-deps.sh)";
    GTEST_SKIP() << python << " with numpy and PIL not found; skipping the dataset's scorer";
  }
  test::TempDir tmp;
  for (const std::string& setup : kAllSetups) write_predictions(root, tmp, setup, true);
  const std::string cmd = python + " '" + root + "/tools/score_relight.py' '" + root + "' '" +
                          tmp.str() + "' --all >'" + tmp.str("script.txt") + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::read_file(tmp.str("script.txt"));
  const auto script = nlohmann::json::parse(test::read_file(tmp.str("scores.json")));

  RelightScore s = score_relight(root, tmp.str(), kAllSetups);
  ASSERT_EQ(s.setups.size(), kAllSetups.size());
  for (const SetupScore& ours : s.setups) {
    SCOPED_TRACE(ours.setup);
    const auto& theirs = script.at(ours.setup);
    ASSERT_EQ(theirs.at("per_view").size(), ours.per_view.size());
    for (std::size_t i = 0; i < ours.per_view.size(); ++i)
      EXPECT_NEAR(ours.per_view[i], theirs.at("per_view")[i].get<double>(), 1e-6) << i;
    EXPECT_NEAR(ours.psnr, theirs.at("psnr").get<double>(), 1e-6);
    EXPECT_NEAR(ours.psnr_masked, theirs.at("psnr_masked").get<double>(), 1e-6);
    ASSERT_TRUE(ours.psnr_vs_noshadow.has_value());
    EXPECT_NEAR(*ours.psnr_vs_noshadow, theirs.at("psnr_vs_noshadow").get<double>(), 1e-6);
  }
  EXPECT_NEAR(s.mean_psnr, script.at("mean_psnr").get<double>(), 1e-6);
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
