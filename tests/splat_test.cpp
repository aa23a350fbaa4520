#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "glint/core/error.h"
#include "glint/io/splat.h"
#include "model_fixture.h"
#include "test_support.h"

namespace glint {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

GaussianModel one_splat() {
  GaussianModel m;
  m.resize(1);
  m.means = {1.5f, -2.25f, 3.0f};
  m.log_scales = {std::log(0.5f), std::log(2.0f), 0.0f};
  m.quats = {2.0f, 0.0f, 0.0f, 0.0f};
  m.opacity_logits = {0.0f};
  m.sh_dc = {0.0f, 1.0f / kShC0 * 0.5f, -10.0f};  // colours 0.5, 1.0, clipped to 0
  return m;
}

TEST(SplatEncode, KnownValues) {
  const SplatRecord r = encode_splat(one_splat(), 0);
  EXPECT_EQ(r.position[0], 1.5f);
  EXPECT_EQ(r.position[1], -2.25f);
  EXPECT_FLOAT_EQ(r.scale[0], 0.5f);
  EXPECT_FLOAT_EQ(r.scale[1], 2.0f);
  EXPECT_FLOAT_EQ(r.scale[2], 1.0f);
  EXPECT_EQ(r.rgba[0], 128);  // 127.5 rounds up
  EXPECT_EQ(r.rgba[1], 255);
  EXPECT_EQ(r.rgba[2], 0);
  EXPECT_EQ(r.rgba[3], 128);  // sigmoid(0) * 255 = 127.5
  // (2,0,0,0) normalises to the identity; w = 256 saturates at 255.
  EXPECT_EQ(r.rot[0], 255);
  EXPECT_EQ(r.rot[1], 128);
  EXPECT_EQ(r.rot[2], 128);
  EXPECT_EQ(r.rot[3], 128);
}

TEST(SplatEncode, FileLayoutIs32LittleEndianBytes) {
  const std::string bytes = write_splat_bytes(one_splat());
  ASSERT_EQ(bytes.size(), 32u);
  float x;
  std::memcpy(&x, bytes.data(), 4);
  EXPECT_EQ(x, 1.5f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[24]), 128);  // R
  EXPECT_EQ(static_cast<unsigned char>(bytes[28]), 255);  // rotation w
}

TEST(SplatDecode, KnownValues) {
  SplatRecord r{{1, 2, 3}, {0.5f, 1.0f, 4.0f}, {255, 0, 128, 255}, {128, 0, 255, 128}};
  GaussianModel m;
  m.resize(1);
  decode_splat(r, m, 0);
  EXPECT_EQ(m.means[2], 3.0f);
  EXPECT_FLOAT_EQ(m.log_scales[0], std::log(0.5f));
  EXPECT_FLOAT_EQ(m.log_scales[2], std::log(4.0f));
  EXPECT_NEAR(0.5 + kShC0 * m.sh_dc[0], 1.0, 1e-6);
  EXPECT_NEAR(0.5 + kShC0 * m.sh_dc[1], 0.0, 1e-6);
  // alpha 255 clamps to 1 - 1e-4 so the logit stays finite.
  EXPECT_NEAR(sigmoid(m.opacity_logits[0]), 1.0 - 1e-4, 1e-7);
  EXPECT_FLOAT_EQ(m.quats[0], 0.0f);
  EXPECT_FLOAT_EQ(m.quats[1], -1.0f);
  EXPECT_FLOAT_EQ(m.quats[2], 127.0f / 128.0f);
}

TEST(SplatRoundTrip, WithinQuantisation) {
  const GaussianModel m = test::random_model(200, 3, 7);
  const GaussianModel back = read_splat_bytes(write_splat_bytes(m), "m.splat");
  test::expect_splat_quantised(m, back, true);
  // Re-encoding a decoded splat gives the same colour and alpha bytes, and rotation bytes
  // within one step (the decoded quaternion is only nearly unit length).
  for (std::size_t i = 0; i < m.size(); ++i) {
    const SplatRecord a = encode_splat(m, i), b = encode_splat(back, i);
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(a.rgba[c], b.rgba[c]) << "splat " << i;
      EXPECT_LE(std::abs(a.rot[c] - b.rot[c]), 1) << "splat " << i;
    }
  }
}

std::string splat_error(const std::string& bytes) {
  try {
    read_splat_bytes(bytes, "bad.splat");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SplatReadErrors, SizeAndValues) {
  EXPECT_EQ(splat_error(""), "bad.splat: empty .splat file");
  EXPECT_EQ(splat_error(std::string(33, '\0')), "bad.splat: size 33 bytes is not a multiple of 32; not a .splat file");
  std::string f = write_splat_bytes(test::random_model(2, 0));
  std::string neg = f;
  const float minus = -1.0f;
  std::memcpy(&neg[32 + 12], &minus, 4);
  EXPECT_EQ(splat_error(neg), "bad.splat: splat 1 has a scale that is not a positive finite number");
  std::string nan = f;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&nan[4], &q, 4);
  EXPECT_EQ(splat_error(nan), "bad.splat: splat 0 has a non-finite position value");
}

TEST(SplatWrite, RefusesScalesOutsideFloatRange) {
  GaussianModel m = test::random_model(1, 0);
  m.log_scales[1] = 200.0f;
  EXPECT_THROW(write_splat_bytes(m), Error);
}

}  // namespace
}  // namespace glint
