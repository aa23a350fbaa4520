// Niantic's .spz: the writer's bytes against the format's layout written out by hand, round
// trips within the quantisation bounds (SpzBounds, docs/ARCHITECTURE.md), versions 1 to 3,
// and one-line errors for every kind of bad file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

#include "glint/core/error.h"
#include "glint/io/cameras_json.h"
#include "glint/io/image_io.h"
#include "glint/io/ply.h"
#include "glint/train/metrics.h"
#include "glint/io/image_ops.h"
#include "support/light_scene.h"
#include "glint/io/gzip.h"
#include "glint/io/model_file.h"
#include "glint/io/spz.h"
#include "model_fixture.h"
#include "test_support.h"

namespace glint {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The decompressed content of a gzip file, through zlib's own reader.
std::string gunzip_all(const std::string& gz) {
  GzipReader in(gz, "t.spz");
  std::string out;
  char c;
  // one byte at a time is slow but these files are tiny; stop where the stream ends
  for (;;) {
    try {
      in.read(&c, 1, "body");
    } catch (const Error&) {
      break;
    }
    out.push_back(c);
  }
  return out;
}

void put32(std::string& s, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) s.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
}
std::string header(std::uint32_t version, std::uint32_t count, int degree, int bits, int flags = 0) {
  std::string s;
  put32(s, kSpzMagic);
  put32(s, version);
  put32(s, count);
  s.push_back(static_cast<char>(degree));
  s.push_back(static_cast<char>(bits));
  s.push_back(static_cast<char>(flags));
  s.push_back('\0');
  return s;
}

// The unit quaternion (w x y z) of model row i.
std::array<double, 4> unit_quat(const GaussianModel& m, std::size_t i) {
  std::array<double, 4> q{};
  double n = 0;
  for (int c = 0; c < 4; ++c) n += double(m.quats[i * 4 + c]) * m.quats[i * 4 + c];
  for (int c = 0; c < 4; ++c) q[c] = m.quats[i * 4 + c] / std::sqrt(n);
  return q;
}
// The angle of the rotation taking q to p, in radians.
double rotation_angle(const std::array<double, 4>& q, const std::array<double, 4>& p) {
  double d = 0;
  for (int c = 0; c < 4; ++c) d += q[c] * p[c];
  return 2.0 * std::acos(std::min(1.0, std::abs(d)));
}

// Every field of `back` within the format's bounds of `m` (values inside each field's range).
void expect_within_bounds(const GaussianModel& m, const GaussianModel& back, int bits, int version) {
  ASSERT_EQ(back.size(), m.size());
  EXPECT_EQ(back.sh_degree, m.sh_degree);
  EXPECT_EQ(back.antialiased, m.antialiased);
  const double pos = std::ldexp(0.5, -bits);
  const int rest = sh_rest_count(m.sh_degree);
  double worst_angle = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (int c = 0; c < 3; ++c) {
      const std::size_t j = i * 3 + c;
      EXPECT_NEAR(back.means[j], m.means[j], pos * (1 + 1e-6)) << i;
      EXPECT_NEAR(back.log_scales[j], m.log_scales[j], SpzBounds::kLogScaleStep / 2 + 1e-6) << i;
      EXPECT_NEAR(back.sh_dc[j], m.sh_dc[j], SpzBounds::kColorStep / 2 + 1e-6) << i;
    }
    EXPECT_NEAR(sigmoid(back.opacity_logits[i]), sigmoid(m.opacity_logits[i]), SpzBounds::kAlphaStep / 2 + 1e-6) << i;
    for (int k = 0; k < rest; ++k)
      for (int c = 0; c < 3; ++c) {
        const std::size_t j = (i * kShRestCoeffs + k) * 3 + c;
        EXPECT_NEAR(back.sh_rest[j], m.sh_rest[j], (k < 3 ? SpzBounds::kSh1Step : SpzBounds::kShRestStep) / 2 + 1e-6);
      }
    const std::array<double, 4> q = unit_quat(m, i), p = unit_quat(back, i);
    if (version >= 3) {
      worst_angle = std::max(worst_angle, rotation_angle(q, p));
    } else {  // x, y, z of the quaternion with w >= 0, each within half a step
      const double s = q[0] < 0 ? -1 : 1;
      for (int c = 1; c < 4; ++c) EXPECT_NEAR(back.quats[i * 4 + c], s * q[c], SpzBounds::kRotationV2Step / 2 + 1e-6);
    }
  }
  if (version >= 3) {
    EXPECT_LT(worst_angle, 0.3 * std::numbers::pi / 180) << "degrees: " << worst_angle * 180 / std::numbers::pi;
  }
}

TEST(Spz, RoundTripWithinTheQuantisationAtEveryDegree) {
  for (int degree = 0; degree <= 3; ++degree) {
    GaussianModel m = test::random_model(400, degree, 7 + degree);
    m.antialiased = degree == 2;
    const std::string bytes = write_spz_bytes(m);
    ASSERT_GE(bytes.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);  // a gzip stream
    const GaussianModel back = read_spz_bytes(bytes, "t.spz");
    expect_within_bounds(m, back, 12, 3);
    // quantised values survive a second trip unchanged, but for rotations whose two largest
    // components tie within the rounding, which may swap which one is left out
    const std::string raw = gunzip_all(bytes), again = gunzip_all(write_spz_bytes(back));
    ASSERT_EQ(again.size(), raw.size());
    const std::size_t rot0 = 16 + 400 * (9 + 1 + 3 + 3), rot1 = rot0 + 400 * 4;
    EXPECT_EQ(raw.substr(0, rot0), again.substr(0, rot0)) << degree;
    EXPECT_EQ(raw.substr(rot1), again.substr(rot1)) << degree;
    expect_within_bounds(back, read_spz_bytes(write_spz_bytes(back), "t.spz"), 12, 3);
  }
}

TEST(Spz, Version2RoundTripAndItsRotations) {
  const GaussianModel m = test::random_model(300, 3, 11);
  SpzWriteOptions o;
  o.version = 2;
  const GaussianModel back = read_spz_bytes(write_spz_bytes(m, "t.spz", o), "t.spz");
  expect_within_bounds(m, back, 12, 2);
}

// Rotations of every kind (near the identity, near 180 degrees, two equal largest
// components), the worst case of version 3's smallest-three code; version 2's derived w
// loses far more near 180-degree turns (printed for docs/ARCHITECTURE.md).
TEST(Spz, Version3RotationsStayWithinATenthOfADegreeOrSo) {
  std::mt19937 rng(3);
  std::normal_distribution<float> g(0.f, 1.f);
  GaussianModel m = test::random_model(20000, 0, 5);
  for (std::size_t i = 0; i < m.size(); ++i)
    for (int c = 0; c < 4; ++c) m.quats[i * 4 + c] = g(rng);
  const float special[][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, -1}, {1, 1, 0, 0}, {1, -1, 1, -1},
                              {0.001f, 1, 0, 0}, {-1, 0.5f, 0.5f, 0.5f}, {0, 0, 0, 0}};
  for (std::size_t s = 0; s < std::size(special); ++s) std::copy(special[s], special[s] + 4, &m.quats[s * 4]);
  double worst[2] = {0, 0}, worst_w02 = 0;
  for (int version : {3, 2}) {
    SpzWriteOptions o;
    o.version = version;
    const GaussianModel back = read_spz_bytes(write_spz_bytes(m, "t.spz", o), "t.spz");
    for (std::size_t i = 0; i < m.size(); ++i) {
      if (i == 7) continue;  // the zero quaternion: written as the identity
      const std::array<double, 4> q = unit_quat(m, i);
      const double a = rotation_angle(q, unit_quat(back, i)) * 180 / std::numbers::pi;
      worst[version == 2] = std::max(worst[version == 2], a);
      if (version == 2 && std::abs(q[0]) >= 0.2) worst_w02 = std::max(worst_w02, a);
    }
    if (version == 3) {
      EXPECT_EQ(std::vector<float>(back.quats.begin() + 28, back.quats.begin() + 32), (std::vector<float>{1, 0, 0, 0}));
    }
  }
  std::printf("largest rotation change over %zu rotations: version 3 %.3f deg; version 2 %.2f deg (%.2f deg where "
              "|w| >= 0.2)\n", m.size() - 1, worst[0], worst[1], worst_w02);
  EXPECT_LT(worst[0], 0.3);
  EXPECT_LT(worst_w02, 4.0);
}

// The bytes of one splat against the format written out by hand: header, 24-bit positions,
// alpha, colour, scales, the smallest-three rotation bits, SH in coefficient-major order.
TEST(Spz, WriterBytesFollowTheLayout) {
  GaussianModel m;
  m.resize(1);
  m.sh_degree = 1;
  m.means = {1.0f, -2.5f, 0.000244140625f};  // 4096, -10240, 1 in units of 2^-12
  m.opacity_logits = {0.f};                  // alpha 0.5 -> 127.5 -> 128
  m.sh_dc = {0.f, 1.f, -1.f};                // 127.5 + 38.25 x
  m.log_scales = {-10.f, 0.f, 5.9375f};      // (x + 10) 16 -> 0, 160, 255
  m.quats = {0.5f, 0.5f, -0.5f, 0.5f};       // w x y z
  const float sh1[9] = {0.f, 0.5f, -1.f, 0.25f, 1.f, -0.125f, 0.03f, 0.9f, -0.3f};
  std::copy(sh1, sh1 + 9, m.sh_rest.begin());
  const std::string raw = gunzip_all(write_spz_bytes(m));
  std::string want = header(3, 1, 1, 12);
  for (std::int32_t v : {4096, -10240, 1})
    for (int b = 0; b < 3; ++b) want.push_back(static_cast<char>((static_cast<std::uint32_t>(v) >> (8 * b)) & 0xff));
  want.push_back(static_cast<char>(128));
  for (int v : {128, 166, 89}) want.push_back(static_cast<char>(v));  // 127.5 + 38.25 -> 165.75, 89.25
  for (int v : {0, 160, 255}) want.push_back(static_cast<char>(v));
  // xyzw = (0.5, -0.5, 0.5, 0.5): all four equal, so the first (x, index 0) is the one
  // left out; y, z, w follow as (sign, round(|c| / sqrt(1/2) * 511) = 361), w lowest.
  const std::uint32_t rot = ((0u << 10 | 512u | 361u) << 10 | 361u) << 10 | 361u;
  put32(want, rot);
  // 128 + x 128 to the nearest multiple of 8 (degree 1), clamped to 255
  for (int v : {128, 192, 0, 160, 255, 112, 128, 240, 88}) want.push_back(static_cast<char>(v));
  ASSERT_EQ(raw.size(), want.size());
  for (std::size_t i = 0; i < raw.size(); ++i)
    EXPECT_EQ(static_cast<unsigned char>(raw[i]), static_cast<unsigned char>(want[i])) << "byte " << i;
}

// A file built by hand, read back: version 2's three bytes, version 1's half floats, and
// a degree-4 file keeping degrees 0 to 3.
TEST(Spz, ReadsHandBuiltFilesOfEveryVersion) {
  {  // version 2, degree 0: position fixed point with 8 fractional bits
    std::string raw = header(2, 1, 0, 8, 1);
    for (int v : {0x80, 0x01, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x80}) raw.push_back(static_cast<char>(v));
    raw.push_back(static_cast<char>(255));                                            // alpha
    for (int v : {0, 255, 128}) raw.push_back(static_cast<char>(v));                 // colour
    for (int v : {16, 32, 48}) raw.push_back(static_cast<char>(v));                  // scales
    for (int v : {255, 128, 128}) raw.push_back(static_cast<char>(v));               // x y z
    const GaussianModel m = read_spz_bytes(gzip_compress(raw), "v2.spz");
    ASSERT_EQ(m.size(), 1u);
    EXPECT_TRUE(m.antialiased);
    EXPECT_FLOAT_EQ(m.means[0], 384.f / 256);
    EXPECT_FLOAT_EQ(m.means[1], -256.f / 256);
    EXPECT_FLOAT_EQ(m.means[2], -8388608.f / 256);  // 0x800000: the most negative 24-bit value
    EXPECT_NEAR(sigmoid(m.opacity_logits[0]), 1.0, 1.1e-4);
    EXPECT_NEAR(m.sh_dc[0], -0.5 / 0.15, 1e-5);
    EXPECT_NEAR(m.sh_dc[1], 0.5 / 0.15, 1e-5);
    EXPECT_NEAR(m.log_scales[0], -9.f, 1e-6);
    EXPECT_NEAR(m.log_scales[2], -7.f, 1e-6);
    EXPECT_NEAR(m.quats[1], 1.0, 1e-6);  // x = 255 / 127.5 - 1
    EXPECT_NEAR(m.quats[2], 0.5 / 127.5, 1e-6);
    EXPECT_FLOAT_EQ(m.quats[0], 0.f);  // w = sqrt(max(0, 1 - |xyz|^2))
  }
  {  // version 1: positions as half floats
    std::string raw = header(1, 1, 0, 0);
    for (int v : {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38}) raw.push_back(static_cast<char>(v));  // 1, -2, 0.5
    raw.append(1 + 3 + 3, static_cast<char>(128));
    for (int v : {128, 128, 128}) raw.push_back(static_cast<char>(v));
    const GaussianModel m = read_spz_bytes(gzip_compress(raw), "v1.spz");
    EXPECT_EQ(m.means, (std::vector<float>{1.f, -2.f, 0.5f}));
  }
  {  // version 3, degree 4: 24 coefficients a splat, the first 15 kept
    std::string raw = header(3, 2, 4, 12);
    raw.append(2 * (9 + 1 + 3 + 3), static_cast<char>(100));
    raw.append(2 * 4, '\0');
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 24; ++k)
        for (int c = 0; c < 3; ++c) raw.push_back(static_cast<char>(128 + (k < 15 ? k : -100) + c + i));
    const GaussianModel m = read_spz_bytes(gzip_compress(raw), "deg4.spz");
    EXPECT_EQ(m.sh_degree, 3);
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 15; ++k)
        for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(m.sh_rest[(i * 15 + k) * 3 + c], (k + c + i) / 128.f);
  }
}

TEST(Spz, FractionalBitsShrinkForLargeScenes) {
  GaussianModel m = test::random_model(20, 0, 2);
  EXPECT_EQ(spz_fractional_bits(m, "t"), 12);
  m.means[4] = 3000.f;  // 2048 and beyond need fewer than 12 bits
  EXPECT_EQ(spz_fractional_bits(m, "t"), 11);
  const GaussianModel back = read_spz_bytes(write_spz_bytes(m), "t.spz");
  expect_within_bounds(m, back, 11, 3);
  m.means[4] = -8388608.f;  // the most negative 24-bit value fits, with no fractional bits
  EXPECT_EQ(spz_fractional_bits(m, "t"), 0);
  EXPECT_EQ(read_spz_bytes(write_spz_bytes(m), "t.spz").means[4], -8388608.f);
  m.means[4] = 8388608.f;
  EXPECT_THROW(spz_fractional_bits(m, "t"), Error);
  try {
    write_spz_bytes(m, "big.spz");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("big.spz: a splat position of 8388608"), std::string::npos) << e.what();
  }
}

TEST(Spz, EmptyModelRoundTrips) {
  GaussianModel m;
  m.sh_degree = 2;
  const GaussianModel back = read_spz_bytes(write_spz_bytes(m), "e.spz");
  EXPECT_EQ(back.size(), 0u);
  EXPECT_EQ(back.sh_degree, 2);
}

// Every kind of bad file: one glint::Error whose message names the file and the problem.
TEST(Spz, BadFilesAreOneLineErrors) {
  const std::string good = write_spz_bytes(test::random_model(50, 1, 3));
  std::string good_raw = header(3, 2, 0, 12) + std::string(2 * (9 + 1 + 3 + 3 + 4), '\x40');
  std::string crc = good;
  crc[crc.size() - 6] ^= 0x55;  // inside the CRC-32 trailer
  struct Case {
    std::string bytes, message;
  } cases[] = {
      {"", "empty file"},
      {"ply\nformat", "not a gzip stream"},
      {header(3, 0, 0, 12), "uncompressed SPZ container"},
      {good.substr(0, good.size() / 2), "truncated file"},
      {good.substr(0, 12), "truncated file"},
      {crc, "corrupt gzip data"},
      {good + "xyz", "3 unexpected bytes after the end of the gzip stream"},
      {gzip_compress("NGSQ" + good_raw.substr(4)), "not an .spz file"},
      {gzip_compress(header(4, 2, 0, 12) + good_raw.substr(16)), "SPZ version 4 is not supported"},
      {gzip_compress(header(0, 2, 0, 12) + good_raw.substr(16)), "SPZ version 0 is not supported"},
      {gzip_compress(header(3, 2, 5, 12) + good_raw.substr(16)), "SH degree 5 is not in 0..4"},
      {gzip_compress(header(3, 2, 0, 12, 2) + good_raw.substr(16)), "vendor extensions"},
      {gzip_compress(header(3, 2, 0, 40) + good_raw.substr(16)), "40 fractional bits"},
      {gzip_compress(good_raw.substr(0, good_raw.size() - 1)), "truncated file: the data ends after"},
      {gzip_compress(good_raw + "z"), "more data follows the splats"},
      {gzip_compress(header(3, 4000000000u, 3, 12)), "4000000000 splats"},
      {gzip_compress(header(3, 2, 0, 12)), "truncated file: the data ends after 16 bytes, inside the positions"},
      {gzip_compress("NGSP"), "inside the 16-byte header"},
  };
  for (const Case& c : cases) {
    try {
      read_spz_bytes(c.bytes, "bad.spz");
      ADD_FAILURE() << "accepted: " << c.message;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("bad.spz: ", 0), 0u) << what;
      EXPECT_NE(what.find(c.message), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  EXPECT_NO_THROW(read_spz_bytes(gzip_compress(good_raw), "ok.spz"));
}

TEST(Spz, NonFiniteModelIsNotWritten) {
  GaussianModel m = test::random_model(3, 0, 1);
  m.log_scales[4] = NAN;
  EXPECT_THROW(write_spz_bytes(m, "x.spz"), Error);
  SpzWriteOptions o;
  o.version = 4;
  EXPECT_THROW(write_spz_bytes(test::random_model(3, 0, 1), "x.spz", o), Error);
}

TEST(Spz, ModelFileLayerPicksItByExtension) {
  test::TempDir dir;
  const GaussianModel m = test::random_model(30, 3, 9);
  save_model(dir.str("a.SPZ"), m);
  EXPECT_EQ(model_format_for(dir.str("a.SPZ")), ModelFormat::Spz);
  expect_within_bounds(m, load_model(dir.str("a.SPZ")), 12, 3);
}

// The commands take .spz wherever they take a model: glint render draws the .spz that
// glint convert wrote as it draws the PLY (within the quantisation), glint info reports it.
TEST(SpzCli, ConvertThenRenderAndInfo) {
  test::TempDir d;
  write_ply(d.str("scene.ply"), test::ground_and_box());
  Camera c;
  c.name = "top";
  c.width = c.height = 64;
  c.fx = c.fy = 80;
  c.cx = c.cy = 32;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};
  c.t = -(c.R * Vec3d{0.2, 0.1, 4});
  write_cameras_json(d.str("cameras.json"), {c});
  test::CommandResult r = test::run_glint("convert " + d.str("scene.ply") + " " + d.str("scene.spz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SPZ version 3"), std::string::npos) << r.out;
  for (const char* m : {"ply", "spz"}) {
    r = test::run_glint("render " + d.str(std::string("scene.") + m) + " " + d.str("cameras.json") + " -o " +
                        d.str(std::string("out_") + m));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const ImageF a = to_float(read_image(d.str("out_ply/top.png"))), b = to_float(read_image(d.str("out_spz/top.png")));
  const double p = psnr(a, b);
  std::printf("glint render, .spz against .ply: %.2f dB\n", p);
  EXPECT_GT(p, 35.0);
  r = test::run_glint("info " + d.str("scene.spz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(".spz (Niantic, quantised)"), std::string::npos) << r.out;
  test::write_file(d.str("bad.spz"), "\x1f\x8b not really");
  // --backend cpu: under auto a CUDA build on a machine without a driver notes its fallback first
  r = test::run_glint("render " + d.str("bad.spz") + " " + d.str("cameras.json") + " -o " + d.str("out_bad") +
                      " --backend cpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("glint: error: " + d.str("bad.spz") + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace glint
