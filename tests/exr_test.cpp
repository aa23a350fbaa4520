#include <gtest/gtest.h>

#include <ImathBox.h>
#include <half.h>
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "glint/core/error.h"
#include "glint/io/exr.h"
#include "glint/io/file_bytes.h"
#include "glint/io/pfm.h"
#include "glint/light/environment_map.h"
#include "test_support.h"

using namespace glint;

namespace {

// Writes the named channels of one float per channel per pixel (interleaved in `values`)
// over the data window `dw`, stored as `type` (FLOAT or HALF).
void write_exr(const std::string& path, const Imath::Box2i& dw, const std::vector<std::string>& names,
               const std::vector<float>& values, Imf::PixelType type,
               Imf::Compression compression = Imf::ZIP_COMPRESSION) {
  Imf::Header header(dw, dw);
  header.compression() = compression;
  for (const std::string& n : names) header.channels().insert(n, Imf::Channel(type));
  const std::size_t nc = names.size();
  const std::size_t w = static_cast<std::size_t>(dw.max.x - dw.min.x + 1);
  std::vector<float> f(values);
  std::vector<half> h(values.begin(), values.end());
  const std::size_t size = type == Imf::HALF ? sizeof(half) : sizeof(float);
  char* base = type == Imf::HALF ? reinterpret_cast<char*>(h.data()) : reinterpret_cast<char*>(f.data());
  Imf::FrameBuffer fb;
  for (std::size_t c = 0; c < nc; ++c)
    fb.insert(names[c], Imf::Slice::Make(type, base + c * size, dw, nc * size, nc * size * w));
  Imf::OutputFile out(path.c_str(), header);
  out.setFrameBuffer(fb);
  out.writePixels(dw.max.y - dw.min.y + 1);
}

std::string error_of(const std::string& path) {
  try {
    read_openexr(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Float channels over a data window that does not start at the origin, with an alpha
// channel beside R, G, B: the data window's pixels come back exactly, rows from the top.
TEST(Exr, ReadsFloatRgbOfAnOffsetDataWindow) {
  test::TempDir d;
  const Imath::Box2i dw({3, -2}, {7, 0});  // 5 x 3
  std::vector<float> v(5 * 3 * 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.37f * static_cast<float>(i) + 1e-3f;
  v[4 * 7 + 1] = 65504.f * 3;  // beyond half's range: must survive as float
  write_exr(d.str("a.exr"), dw, {"R", "G", "B", "A"}, v, Imf::FLOAT);
  const ImageF img = read_openexr(d.str("a.exr"));
  ASSERT_EQ(img.width, 5);
  ASSERT_EQ(img.height, 3);
  ASSERT_EQ(img.channels, 3);
  for (int p = 0; p < 15; ++p)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(img.data[p * 3 + c], v[p * 4 + c]) << p << " " << c;
}

// Half channels are widened exactly; a luminance-only file is grey.
TEST(Exr, ReadsHalfRgbAndLuminance) {
  test::TempDir d;
  const Imath::Box2i dw({0, 0}, {3, 1});
  std::vector<float> v(4 * 2 * 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i == 5 ? 2048.f : 0.25f * static_cast<float>(i);  // all exact in half
  write_exr(d.str("h.exr"), dw, {"R", "G", "B"}, v, Imf::HALF, Imf::PIZ_COMPRESSION);
  ImageF img = read_openexr(d.str("h.exr"));
  ASSERT_EQ(img.data.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(img.data[i], v[i]) << i;

  std::vector<float> y = {0.5f, 1.f, 2.f, 4.f, 8.f, 16.f, 32.f, 64.f};
  write_exr(d.str("y.exr"), dw, {"Y"}, y, Imf::FLOAT);
  img = read_openexr(d.str("y.exr"));
  for (std::size_t p = 0; p < y.size(); ++p)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(img.data[p * 3 + c], y[p]) << p;
}

// Every failure is a glint::Error naming the file: missing, not EXR, no colour channels,
// cut short.
TEST(Exr, BadFilesAreErrorsNamingTheFile) {
  test::TempDir d;
  std::string e = error_of(d.str("missing.exr"));
  EXPECT_NE(e.find("missing.exr"), std::string::npos) << e;

  {
    std::ofstream(d.str("text.exr")) << "this is not an image";
  }
  e = error_of(d.str("text.exr"));
  EXPECT_NE(e.find("text.exr"), std::string::npos) << e;
  EXPECT_NE(e.find("not an OpenEXR file"), std::string::npos) << e;

  const Imath::Box2i dw({0, 0}, {15, 7});
  std::vector<float> z(16 * 8, 1.f);
  write_exr(d.str("depth.exr"), dw, {"Z"}, z, Imf::FLOAT);
  e = error_of(d.str("depth.exr"));
  EXPECT_NE(e.find("depth.exr"), std::string::npos) << e;
  EXPECT_NE(e.find("no R, G and B"), std::string::npos) << e;

  std::vector<float> v(16 * 8 * 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 97);
  write_exr(d.str("full.exr"), dw, {"R", "G", "B"}, v, Imf::FLOAT, Imf::NO_COMPRESSION);
  const std::string bytes = read_file_bytes(d.str("full.exr"));
  for (std::size_t keep : {bytes.size() / 2, bytes.size() - 7, std::size_t{40}}) {
    {
      std::ofstream(d.str("cut.exr"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(keep));
    }
    e = error_of(d.str("cut.exr"));
    EXPECT_NE(e.find("cut.exr"), std::string::npos) << "kept " << keep << " of " << bytes.size() << ": " << e;
  }
}

// An environment light's map may be .exr; the relight dataset ships its map both ways.
TEST(Exr, DatasetEnvironmentMapEqualsItsPfm) {
  GLINT_REQUIRE_SHARED(exr, "relight/relit/env_courtyard.exr");
  const EnvironmentMap a = read_environment_map(exr, 0.5, 10);
  const ImageF b = read_pfm(std::string(GLINT_SHARED_DATASETS) + "/relight/relit/env_courtyard.pfm");
  ASSERT_EQ(a.width(), b.width);
  ASSERT_EQ(a.height(), b.height);
  EXPECT_EQ(std::memcmp(a.texels.data.data(), b.data.data(), b.data.size() * sizeof(float)), 0);
  EXPECT_EQ(a.strength, 0.5);
}
