// glint relight end to end on the constructed ground + box scene: every shadow mode writes
// the setup's images, and a tilted sun's cast shadow is dark where open ground is lit.
#include <gtest/gtest.h>
#include <cstring>
#include <filesystem>
#include <utility>

#include "glint/io/cameras_json.h"
#include "glint/io/image_io.h"
#include "glint/io/pfm.h"
#include "glint/io/ply.h"
#include "support/light_scene.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {

// Looking straight down from 4 m above the origin.
Camera top_camera() {
  Camera c;
  c.name = "top";
  c.width = c.height = 80;
  c.fx = c.fy = 100;
  c.cx = c.cy = 40;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};  // camera z = world -z
  c.t = -(c.R * Vec3d{0, 0, 4});
  return c;
}

// Pixel of a world point on the ground.
std::pair<int, int> pixel_of(const Camera& c, Vec3d p) {
  Vec2d px = c.project(c.world_to_camera(p));
  return {static_cast<int>(px.x), static_cast<int>(px.y)};
}

}  // namespace

TEST(RelightCli, EveryShadowModeWritesTheSetup) {
  TempDir d;
  GaussianModel m = ground_and_box();
  for (float& v : m.sh_dc) v = 1.0f;  // light grey albedo
  write_ply(d.str("scene.ply"), m);
  Camera cam = top_camera();
  write_cameras_json(d.str("cameras.json"), {cam});
  write_file(d.str("lights.json"),
             R"({"name":"noon","ambient":{"strength":0.1},"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":3}]})");
  for (const char* mode : {"pcf", "transmittance", "none"}) {
    SCOPED_TRACE(mode);
    const std::string out = d.str(std::string("out_") + mode);
    CommandResult r = run_glint("relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") +
                                "' --lights '" + d.str("lights.json") + "' -o '" + out + "' --shadows " + mode +
                                " --shadow-res 256 --ao-directions 8");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Image8 img = read_image(out + "/noon/r_0.png");
    ASSERT_EQ(img.channels, 4);
    // An overhead sun's shadow lies under the box, hidden from this camera by the box
    // itself: here open ground must be lit and covered (the cast shadow is tested below).
    auto [ox, oy] = pixel_of(cam, {0.7, 0.7, 0});
    EXPECT_GT(img.row(oy)[ox * 4 + 3], 250);  // covered
    EXPECT_GT(img.row(oy)[ox * 4], 100);      // lit open ground
  }
}

TEST(RelightCli, TiltedSunCastsShadowBesideTheBox) {
  TempDir d;
  GaussianModel m = ground_and_box();
  for (float& v : m.sh_dc) v = 1.0f;
  write_ply(d.str("scene.ply"), m);
  Camera cam = top_camera();
  write_cameras_json(d.str("cameras.json"), {cam});
  // Sun 45 degrees towards -x: the box (z 0.3..0.8) throws its shadow 0.3..0.8 m towards +x.
  write_file(d.str("lights.json"),
             R"({"name":"evening","ambient":{"strength":0.1},"lights":[{"type":"sun","direction_to_light":[-1,0,1],"strength_W_per_m2":3}]})");
  for (const char* mode : {"pcf", "transmittance"}) {
    SCOPED_TRACE(mode);
    const std::string out = d.str(std::string("out_") + mode);
    CommandResult r = run_glint("relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") +
                                "' --lights '" + d.str("lights.json") + "' -o '" + out + "' --shadows " + mode +
                                " --shadow-res 256 --ao-directions 8 --no-delight");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Image8 img = read_image(out + "/evening/r_0.png");
    auto [sx, sy] = pixel_of(cam, {0.85, 0.0, 0});  // inside the cast shadow, beyond the box
    auto [lx, ly] = pixel_of(cam, {-0.7, 0.0, 0});  // open ground on the lit side
    int shadowed = img.row(sy)[sx * 4], lit = img.row(ly)[lx * 4];
    EXPECT_LT(shadowed + 60, lit) << "shadowed " << shadowed << " lit " << lit;
  }
  // Without shadows the same spot is as bright as open ground.
  CommandResult r = run_glint("relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") +
                              "' --lights '" + d.str("lights.json") + "' -o '" + d.str("none") +
                              "' --shadows none --no-delight");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Image8 img = read_image(d.str("none/evening/r_0.png"));
  auto [sx, sy] = pixel_of(cam, {0.85, 0.0, 0});
  auto [lx, ly] = pixel_of(cam, {-0.7, 0.0, 0});
  EXPECT_NEAR(img.row(sy)[sx * 4], img.row(ly)[lx * 4], 6);
}

// --backend cpu: a CUDA build on a machine without a GPU says on a line of its own that
// auto fell back to the CPU, before any error.
TEST(RelightCli, BadLightFileIsOneLineError) {
  TempDir d;
  GaussianModel m = ground_and_box();
  write_ply(d.str("scene.ply"), m);
  write_cameras_json(d.str("cameras.json"), {top_camera()});
  write_file(d.str("lights.json"), R"({"lights":[{"type":"laser"}]})");
  CommandResult r = run_glint("relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") +
                              "' --lights '" + d.str("lights.json") + "' -o '" + d.str("o") + "' --backend cpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("lights.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
}

TEST(RelightCli, SeveralLightFilesAndAFolderWithAnEnvironment) {
  TempDir d;
  GaussianModel m = ground_and_box();
  for (float& v : m.sh_dc) v = 1.0f;
  write_ply(d.str("scene.ply"), m);
  write_cameras_json(d.str("cameras.json"), {top_camera()});
  std::filesystem::create_directories(d.str("lights/maps"));
  ImageF sky(16, 8, 3, 0.2f);
  write_pfm(d.str("lights/maps/sky.pfm"), sky);
  write_file(d.str("lights/a.json"),
             R"({"name":"noon","ambient":{"strength":0.1},"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":3}]})");
  // The map's path is relative to the light file's folder.
  write_file(d.str("lights/b.json"),
             R"({"setups":{"sky":{"ambient":{"type":"none","strength":0},"lights":[{"type":"environment","file":"maps/sky.pfm","strength":2,"rotation_z_deg":10}]}}})");
  const std::string base = "relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") +
                           "' --shadow-res 128 --ao-directions 8 --backend cpu ";
  CommandResult r = run_glint(base + "--lights '" + d.str("lights/a.json") + "' '" + d.str("lights/b.json") + "' -o '" +
                              d.str("two") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(d.str("two/noon/r_0.png")));
  ASSERT_TRUE(std::filesystem::exists(d.str("two/sky/r_0.png")));
  r = run_glint(base + "--lights '" + d.str("lights") + "' -o '" + d.str("dir") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(d.str("dir/sky/r_0.png")), read_file(d.str("two/sky/r_0.png")));
  // A uniform sky of radiance 0.4 lights open ground (AO ~ 1) like an ambient of 0.4.
  Image8 img = read_image(d.str("dir/sky/r_0.png"));
  auto [ox, oy] = pixel_of(top_camera(), {0.8, 0.8, 0});
  EXPECT_GT(img.row(oy)[ox * 4], 100);
  // A missing map: one line naming it, exit 2.
  write_file(d.str("lights/b.json"), R"({"lights":[{"type":"environment","file":"maps/none.pfm"}]})");
  r = run_glint(base + "--lights '" + d.str("lights") + "' -o '" + d.str("bad") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("maps/none.pfm"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
}

// --albedo writes the albedo the views are shaded with: the capture divided by the AO
// (--no-delight: the capture), so never darker than the capture, and brighter by more on
// the ground beside the floating box than far from it.
TEST(RelightCli, AlbedoIsTheDelitCapture) {
  TempDir d;
  GaussianModel m = ground_and_box();
  for (float& v : m.sh_dc) v = 0.5f;
  write_ply(d.str("scene.ply"), m);
  Camera cam = top_camera();
  write_cameras_json(d.str("cameras.json"), {cam});
  write_file(d.str("lights.json"), R"({"name":"amb","ambient":{"strength":1},"lights":[]})");
  auto run = [&](const std::string& out, const std::string& extra) {
    return run_glint("relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") + "' --lights '" +
                     d.str("lights.json") + "' -o '" + out + "' --albedo --backend cpu --ao-directions 16 " + extra);
  };
  CommandResult r = run(d.str("delit"), "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run(d.str("raw"), "--no-delight");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Image8 delit = read_image(d.str("delit/albedo/r_0.png")), raw = read_image(d.str("raw/albedo/r_0.png"));
  ASSERT_EQ(delit.channels, 4);
  auto at = [&](const Image8& img, Vec3d p) {
    auto [x, y] = pixel_of(cam, p);
    return static_cast<int>(img.row(y)[x * 4]);
  };
  const Vec3d open{0.8, 0.8, 0}, beside{kBoxHalf + 0.03, 0, 0};
  EXPECT_GE(at(delit, open), at(raw, open));
  EXPECT_GT(at(delit, beside) - at(raw, beside), at(delit, open) - at(raw, open) + 5)
      << at(delit, beside) << " " << at(raw, beside) << " " << at(delit, open) << " " << at(raw, open);
  // A setup named like the folder is refused before anything is written.
  write_file(d.str("lights.json"), R"({"name":"albedo","ambient":{"strength":1},"lights":[]})");
  r = run(d.str("clash"), "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("albedo"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
}

namespace fs = std::filesystem;

namespace {

// The ground and box seen from above under a noon sun, written into `d`; returns the
// relight command up to its output folder's opening quote.
std::string noon_scene(TempDir& d) {
  write_ply(d.str("scene.ply"), ground_and_box());
  write_cameras_json(d.str("cameras.json"), {top_camera()});
  write_file(d.str("lights.json"),
             R"({"name":"noon","ambient":{"strength":0.1},"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":3}]})");
  return "relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") + "' --lights '" +
         d.str("lights.json") + "' --backend cpu --ao-directions 8 -o '";
}

}  // namespace

// The normal options belong to their mode: a smoothing sigma with the default (fit)
// normals, or a fit window or fit depth with another mode, is one line and exit 2, not
// ignored; each mode writes its views.
TEST(RelightCli, NormalOptionsBelongToTheirMode) {
  TempDir d;
  const std::string base = noon_scene(d);
  const std::pair<const char*, const char*> bads[] = {{"' --normal-smooth 3", "--normal-smooth"},
                                                       {"' --normals depth --normal-fit-px 3", "--normal-fit-px"},
                                                       {"' --normals splats --fit-depth planar", "--fit-depth"}};
  for (const auto& [bad, flag] : bads) {
    SCOPED_TRACE(bad);
    CommandResult r = run_glint(base + d.str("bad") + bad);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
    EXPECT_FALSE(fs::exists(d.str("bad")));
  }
  for (const char* ok : {"' --normal-fit-px 3", "' --fit-depth expected", "' --normals splats --normal-smooth 3",
                         "' --normals depth --normal-smooth 1"}) {
    SCOPED_TRACE(ok);
    const std::string out = d.str("ok" + std::to_string(std::strlen(ok)));
    CommandResult r = run_glint(base + out + ok);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(out + "/noon/r_0.png"));
  }
}

// --mixed-depth is a fraction of the depth: outside [0, 1] a usage error naming it; 0
// (the expected depth everywhere, as glint view's page) relights.
TEST(RelightCli, MixedDepthIsAFraction) {
  TempDir d;
  const std::string base = noon_scene(d);
  for (const char* bad : {"' --mixed-depth -0.1", "' --mixed-depth 1.5", "' --mixed-depth x"}) {
    SCOPED_TRACE(bad);
    CommandResult r = run_glint(base + d.str("bad") + bad);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.substr(0, r.err.find('\n')).find("--mixed-depth"), std::string::npos) << r.err;  // the first line
    EXPECT_FALSE(fs::exists(d.str("bad")));
  }
  CommandResult r = run_glint(base + d.str("ok") + "' --mixed-depth 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(d.str("ok") + "/noon/r_0.png"));
}
