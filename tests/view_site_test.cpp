// The viewer's routing: exact known paths only, whatever the encoding or dots.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "glint/core/gaussians.h"
#include "glint/view/assets.h"
#include "glint/view/model_blob.h"
#include "glint/view/site.h"

using glint::view::Site;

TEST(ViewSite, ServesTheEmbeddedPageAndAddedFiles) {
  Site site;
  site.add("/api/model.bin", std::string("\x01\x02", 2), "application/octet-stream");
  auto index = site.route("GET", "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("<canvas"), std::string_view::npos);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(site.route("GET", "/index.html").body, index.body);
  EXPECT_EQ(site.route("GET", "/viewer.js").content_type, "text/javascript; charset=utf-8");
  auto blob = site.route("GET", "/api/model.bin");
  EXPECT_EQ(blob.status, 200);
  EXPECT_EQ(blob.body, std::string("\x01\x02", 2));
  EXPECT_EQ(site.route("HEAD", "/viewer.js").status, 200);
}

TEST(ViewSite, RefusesEverythingElse) {
  Site site;
  for (const char* p : {"/../CMakeLists.txt", "/%2e%2e/CMakeLists.txt", "/..%2fCMakeLists.txt", "//index.html",
                        "/index.html/", "/./index.html", "/page/index.html", "/api/", "/api", "", "index.html",
                        "/etc/passwd", "/INDEX.HTML"})
    EXPECT_EQ(site.route("GET", p).status, 404) << p;
  EXPECT_EQ(site.route("POST", "/index.html").status, 405);
  EXPECT_EQ(site.route("PUT", "/").status, 405);
}

TEST(ViewSite, EveryEmbeddedFileHasItsSourceSize) {
  // The page's source files and what the binary carries are the same bytes.
  for (const auto& a : glint::view::embedded_assets()) {
    std::string path = std::string(GLINT_SOURCE_DIR) + "/src/glint/view/page" + a.path;
    FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr) << path;
    std::string bytes;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.append(buf, n);
    std::fclose(f);
    EXPECT_EQ(bytes, std::string(reinterpret_cast<const char*>(a.data), a.size)) << a.path;
  }
  EXPECT_GE(glint::view::embedded_assets().size(), 5u);
}

TEST(ViewModelBlob, LayoutIsTheHeaderThenTheArraysWithLiveShOnly) {
  glint::GaussianModel m;
  m.resize(2);
  m.sh_degree = 1;
  for (std::size_t i = 0; i < m.means.size(); ++i) m.means[i] = float(i);
  for (std::size_t i = 0; i < m.sh_rest.size(); ++i) m.sh_rest[i] = float(100 + i);
  m.opacity_logits = {0.5f, -0.5f};
  const std::string b = glint::view::encode_model_blob(m);
  ASSERT_EQ(b.size(), 20u + 2u * (14u + 9u) * 4u);
  EXPECT_EQ(b.substr(0, 4), "GLVW");
  auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
  };
  auto f32 = [&](std::size_t i) {
    float v;
    std::memcpy(&v, b.data() + 20 + 4 * i, 4);
    return v;
  };
  EXPECT_EQ(u32(4), 2u);
  EXPECT_EQ(u32(8), 2u);
  EXPECT_EQ(u32(12), 1u);
  EXPECT_EQ(u32(16), 0u);  // not antialiased
  m.antialiased = true;
  EXPECT_EQ(glint::view::encode_model_blob(m).substr(16, 4), std::string("\x01\0\0\0", 4));
  EXPECT_EQ(f32(5), 5.f);         // means[5]
  EXPECT_EQ(f32(6 + 6 + 8), 0.5f);  // opacity_logits[0] after means, log_scales, quats
  // splat 1's first rest coefficient: rest starts after 6+6+8+2+6 floats, 9 a splat
  EXPECT_EQ(f32(28 + 9), float(100 + 45));
}
