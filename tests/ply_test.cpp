#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "glint/core/error.h"
#include "glint/io/ply.h"
#include "model_fixture.h"
#include "ply_builder.h"
#include "test_support.h"

namespace glint {
namespace {

using test::build_ply;
using test::PlyBuild;
using test::expect_same_model;
using test::random_model;
using test::standard_props;


// The message of the glint::Error that reading `bytes` as a file named `name` throws.
std::string read_error(const std::string& bytes, const std::string& name = "bad.ply") {
  try {
    read_ply_bytes(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no glint::Error for " << name;
  return "";
}

#define EXPECT_READ_ERROR(bytes, problem)                               \
  do {                                                                  \
    const std::string msg_ = read_error(bytes);                         \
    EXPECT_EQ(msg_.rfind("bad.ply: ", 0), 0u) << msg_;                  \
    EXPECT_NE(msg_.find(problem), std::string::npos) << msg_;           \
    EXPECT_EQ(msg_.find('\n'), std::string::npos) << msg_;              \
  } while (0)

TEST(PlyWrite, HeaderTextAndRowSizeAtDegree3) {
  const GaussianModel m = random_model(5, 3);
  const std::string bytes = write_ply_bytes(m);
  std::string expected = "ply\nformat binary_little_endian 1.0\nelement vertex 5\n";
  for (const char* n : {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"})
    expected += std::string("property float ") + n + "\n";
  for (int j = 0; j < 45; ++j) expected += "property float f_rest_" + std::to_string(j) + "\n";
  expected += "property float opacity\n";
  for (int j = 0; j < 3; ++j) expected += "property float scale_" + std::to_string(j) + "\n";
  for (int j = 0; j < 4; ++j) expected += "property float rot_" + std::to_string(j) + "\n";
  expected += "end_header\n";
  ASSERT_EQ(bytes.substr(0, expected.size()), expected);
  EXPECT_EQ(bytes.size() - expected.size(), 5u * 248u);
}

// Below degree 3 the writer lists only the model's own f_rest_* (none at degree 0), the layout
// graphdeco's own save_ply writes for a model of that degree.
TEST(PlyWrite, HeaderTextAtLowDegreesListsOnlyTheModelsCoefficients) {
  for (int d = 0; d <= 2; ++d) {
    const std::string bytes = write_ply_bytes(random_model(2, d));
    std::string expected = "ply\nformat binary_little_endian 1.0\nelement vertex 2\n";
    for (const char* n : {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"})
      expected += std::string("property float ") + n + "\n";
    for (int j = 0; j < 3 * sh_rest_count(d); ++j) expected += "property float f_rest_" + std::to_string(j) + "\n";
    expected += "property float opacity\n";
    for (int j = 0; j < 3; ++j) expected += "property float scale_" + std::to_string(j) + "\n";
    for (int j = 0; j < 4; ++j) expected += "property float rot_" + std::to_string(j) + "\n";
    expected += "end_header\n";
    ASSERT_EQ(bytes.substr(0, expected.size()), expected) << "degree " << d;
    EXPECT_EQ(bytes.size() - expected.size(), 2u * 4u * (17u + 3u * sh_rest_count(d))) << "degree " << d;
  }
  EXPECT_EQ(write_ply_bytes(random_model(1, 0)).find("f_rest_"), std::string::npos);
}

TEST(PlyWrite, RowSizePerDegree) {
  const std::size_t rows[] = {17 * 4, 26 * 4, 41 * 4, 62 * 4};
  for (int d = 0; d <= 3; ++d) {
    const std::string one = write_ply_bytes(random_model(1, d));
    const std::string two = write_ply_bytes(random_model(2, d));
    // Headers differ only in the count digit, so the size difference is one row.
    EXPECT_EQ(two.size() - one.size(), rows[d]) << "degree " << d;
  }
}

TEST(PlyWrite, FRestIsChannelMajorAndNormalsAreZero) {
  GaussianModel m = random_model(2, 3);
  for (int k = 0; k < 15; ++k)
    for (int c = 0; c < 3; ++c) m.sh_rest[(1 * 15 + k) * 3 + c] = static_cast<float>(100 * c + k);
  const std::string bytes = write_ply_bytes(m);
  const std::size_t body = bytes.find("end_header\n") + 11;
  const char* row = bytes.data() + body + 248;
  auto at = [&](int prop) {
    float v;
    std::memcpy(&v, row + 4 * prop, 4);
    return v;
  };
  for (int j = 0; j < 45; ++j) EXPECT_EQ(at(9 + j), static_cast<float>(100 * (j / 15) + j % 15)) << "f_rest_" << j;
  for (int j = 3; j < 6; ++j) EXPECT_EQ(at(j), 0.0f);
  EXPECT_EQ(at(54), m.opacity_logits[1]);
  EXPECT_EQ(at(58), m.quats[4]);
}

TEST(PlyRoundTrip, EveryDegreeIsExactAndRewriteIsByteIdentical) {
  for (int d = 0; d <= 3; ++d) {
    const GaussianModel m = random_model(37, d, 10 + d);
    const std::string first = write_ply_bytes(m);
    const GaussianModel back = read_ply_bytes(first, "m.ply");
    expect_same_model(m, back);
    EXPECT_EQ(write_ply_bytes(back), first) << "degree " << d;
  }
}

TEST(PlyRoundTrip, ThroughFilesAndEmptyModel) {
  test::TempDir dir;
  const GaussianModel m = random_model(3, 2);
  write_ply(dir.str("a.ply"), m);
  expect_same_model(read_ply(dir.str("a.ply")), m);
  const GaussianModel empty = random_model(0, 0);
  write_ply(dir.str("e.ply"), empty);
  EXPECT_EQ(read_ply(dir.str("e.ply")).size(), 0u);
}

TEST(PlyRead, Ascii) {
  const GaussianModel m = random_model(4, 2);
  PlyBuild b;
  b.format = "ascii";
  b.props = standard_props(2);
  expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
}

TEST(PlyRead, BigEndianDoubles) {
  const GaussianModel m = random_model(4, 1);
  PlyBuild b;
  b.format = "binary_big_endian";
  b.props = standard_props(1, "double");
  expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
  b.props = standard_props(1, "float32");
  expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
}

TEST(PlyRead, ReorderedAndExtraPropertiesOfEveryType) {
  const GaussianModel m = random_model(6, 3);
  for (const char* format : {"binary_little_endian", "binary_big_endian", "ascii"}) {
    PlyBuild b;
    b.format = format;
    b.props = standard_props(3, "float64");
    std::mt19937 rng(3);
    std::shuffle(b.props.begin(), b.props.end(), rng);
    int k = 0;
    for (const char* t : {"char", "uchar", "short", "ushort", "int", "uint", "int8", "uint8", "int16", "uint16",
                          "int32", "uint32", "float", "float32", "double", "float64"})
      b.props.insert(b.props.begin() + 3 * k, {t, "extra_" + std::to_string(k++)});
    expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
  }
}

TEST(PlyRead, IntegerTypedRequiredProperties) {
  GaussianModel m = random_model(3, 0);
  for (auto& v : m.means) v = std::round(v);
  for (auto& v : m.opacity_logits) v = std::round(v);
  PlyBuild b;
  b.props = standard_props(0);
  b.props[0].type = "short";
  b.props[1].type = "int";
  b.props[2].type = "char";
  for (auto& p : b.props)
    if (p.name == "opacity") p.type = "int16";
  expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
}

TEST(PlyRead, CommentsObjInfoAndCrlfHeader) {
  const GaussianModel m = random_model(2, 1);
  PlyBuild b;
  b.props = standard_props(1);
  b.eol = "\r\n";
  b.extra_header_lines = "comment made by some tool\r\nobj_info anything goes\r\ncomment\r\n";
  expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
}

// A model trained with the 2D filter says so in a comment line, which other readers skip;
// the mark survives a round trip, a model without it has no such line, and another
// tool's comments do not set it.
TEST(PlyRoundTrip, AntialiasedModelIsMarkedByAComment) {
  GaussianModel m = random_model(4, 1);
  EXPECT_EQ(write_ply_bytes(m).find("comment"), std::string::npos);
  EXPECT_FALSE(read_ply_bytes(write_ply_bytes(m), "a.ply").antialiased);
  m.antialiased = true;
  const std::string bytes = write_ply_bytes(m);
  EXPECT_NE(bytes.find("\ncomment glint antialiased\n"), std::string::npos);
  EXPECT_LT(bytes.find("comment"), bytes.find("element vertex"));
  const GaussianModel back = read_ply_bytes(bytes, "a.ply");
  expect_same_model(m, back);
  EXPECT_EQ(write_ply_bytes(back), bytes);
  PlyBuild b;
  b.props = standard_props(1);
  b.extra_header_lines = "comment glint antialiased but not quite\ncomment   glint antialiased\n";
  EXPECT_TRUE(read_ply_bytes(build_ply(m, b), "b.ply").antialiased);
  b.extra_header_lines = "comment glint antialiased but not quite\n";
  EXPECT_FALSE(read_ply_bytes(build_ply(m, b), "c.ply").antialiased);
}

TEST(PlyRead, OtherElementsBeforeAndAfterVertexWithLists) {
  const GaussianModel m = random_model(3, 0);
  for (const char* format : {"binary_little_endian", "binary_big_endian", "ascii"}) {
    const bool ascii = std::string(format) == "ascii", big = std::string(format) == "binary_big_endian";
    PlyBuild b;
    b.format = format;
    b.props = standard_props(0);
    b.element_before = "element camera 2\nproperty float fx\nproperty list uchar int ids\n";
    b.element_after = "element face 2\nproperty list uint short vertex_indices\nproperty uchar flag\n";
    if (ascii) {
      b.body_before = "500 3 1 2 3\n600 0\n";
      b.body_after = "3 0 1 2 9\n4 0 1 2 0 8\n";
    } else {
      using test::encode_scalar;
      b.body_before = encode_scalar("float", 500, big) + encode_scalar("uchar", 2, big) + encode_scalar("int", 1, big) +
                      encode_scalar("int", 2, big) + encode_scalar("float", 600, big) + encode_scalar("uchar", 0, big);
      b.body_after = encode_scalar("uint", 1, big) + encode_scalar("short", 5, big) + encode_scalar("uchar", 1, big) +
                     encode_scalar("uint", 0, big) + encode_scalar("uchar", 2, big);
    }
    expect_same_model(read_ply_bytes(build_ply(m, b), "a.ply"), m);
    // The element after the vertices is checked too: cutting its data short is an error.
    std::string cut = build_ply(m, b);
    cut.resize(cut.size() - 2);
    const std::string msg = read_error(cut);
    EXPECT_NE(msg.find("face"), std::string::npos) << format << ": " << msg;
  }
}

// ---- bad input: every message names the file and the problem, on one line ----

std::string good_file() { return write_ply_bytes(random_model(2, 1)); }

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(PlyReadErrors, BrokenHeaders) {
  const std::string g = good_file();
  EXPECT_READ_ERROR("", "not a PLY file");
  EXPECT_READ_ERROR("plx\n" + g.substr(4), "not a PLY file");
  EXPECT_READ_ERROR(g.substr(0, g.find("end_header")), "no end_header");
  EXPECT_READ_ERROR(replace_once(g, "binary_little_endian", "binary_middle_endian"), "unknown PLY format");
  EXPECT_READ_ERROR(replace_once(g, "format binary_little_endian 1.0\n", ""), "no format line");
  EXPECT_READ_ERROR(replace_once(g, "property float x\n", "property float q\n"), "required property 'x'");
  EXPECT_READ_ERROR(replace_once(g, "property float opacity\n", "property float opacityy\n"),
                    "required property 'opacity'");
  EXPECT_READ_ERROR(replace_once(g, "property float rot_3\n", ""), "required property 'rot_3'");
  EXPECT_READ_ERROR(replace_once(g, "property float x\n", "property quad x\n"), "unknown property type");
  EXPECT_READ_ERROR(replace_once(g, "property float f_rest_8\n", ""), "8 f_rest_* properties");
  EXPECT_READ_ERROR(replace_once(g, "property float x\n", "property list uchar float x\n"), "is a list");
  EXPECT_READ_ERROR(replace_once(g, "property float x\n", "property float x\nproperty float x\n"), "appears twice");
  EXPECT_READ_ERROR(replace_once(g, "ply\n", "ply\nfrobnicate 3\n"), "unknown header keyword");
  EXPECT_READ_ERROR(replace_once(g, "element vertex", "property float x\nelement vertex"), "before any element");
  EXPECT_READ_ERROR(replace_once(g, "element vertex 2\n", "element points 2\n"), "no vertex element");
}

TEST(PlyReadErrors, BadVertexCounts) {
  const std::string g = good_file();
  EXPECT_READ_ERROR(replace_once(g, "vertex 2", "vertex 2a"), "not a non-negative whole number");
  EXPECT_READ_ERROR(replace_once(g, "vertex 2", "vertex -2"), "not a non-negative whole number");
  EXPECT_READ_ERROR(replace_once(g, "vertex 2", "vertex 99999999999999999999999"), "not a non-negative whole number");
  EXPECT_READ_ERROR(replace_once(g, "vertex 2", "vertex 3"), "truncated or its vertex count is wrong");
  EXPECT_READ_ERROR(replace_once(g, "vertex 2", "vertex 18446744073709551615"), "truncated");
  EXPECT_READ_ERROR(replace_once(g, "vertex 2", "vertex 4611686018427387904"), "truncated");
  PlyBuild b;
  b.format = "ascii";
  b.props = standard_props(0);
  const std::string ascii = build_ply(random_model(2, 0), b);
  EXPECT_READ_ERROR(replace_once(ascii, "vertex 2", "vertex 1000000000000"), "truncated");
  EXPECT_READ_ERROR(replace_once(ascii, "vertex 2", "vertex 3"), "truncated");
}

TEST(PlyReadErrors, TruncatedAndCorruptBodies) {
  const std::string g = good_file();
  EXPECT_READ_ERROR(g.substr(0, g.size() - 1), "truncated");
  PlyBuild b;
  b.format = "ascii";
  b.props = standard_props(0);
  const std::string ascii = build_ply(random_model(2, 0), b);
  EXPECT_READ_ERROR(ascii.substr(0, ascii.rfind(' ')), "truncated");
  const std::size_t body = ascii.find("end_header\n") + 11;
  std::string word = ascii;
  word.replace(body, 1, "z");
  EXPECT_READ_ERROR(word, "is not a number");
  // Element counts before the vertices are checked against the data as well.
  b.format = "binary_little_endian";
  b.element_before = "element junk 4000000000\nproperty list uint float values\n";
  EXPECT_READ_ERROR(build_ply(random_model(1, 0), b), "junk");
}

TEST(PlyReadErrors, NonFiniteValues) {
  for (const char* bad : {"nan", "inf", "-inf", "1e300"}) {
    PlyBuild b;
    b.format = "ascii";
    b.props = standard_props(0);
    std::string f = build_ply(random_model(1, 0), b);
    const std::size_t body = f.find("end_header\n") + 11;
    f.replace(body, f.find(' ', body) - body, bad);
    EXPECT_READ_ERROR(f, "'x' is not a finite float");
  }
  GaussianModel m = random_model(2, 0);
  std::string f = write_ply_bytes(m);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&f[f.size() - 4], &nan, 4);
  EXPECT_READ_ERROR(f, "vertex 1: property 'rot_3'");
}

TEST(PlyReadErrors, MissingFile) {
  try {
    read_ply("/nonexistent/x.ply");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.ply: no such file");
  }
}

TEST(PlyWrite, RefusesMalformedAndNonFiniteModels) {
  GaussianModel m = random_model(2, 1);
  m.opacity_logits[1] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(write_ply_bytes(m), Error);
  m = random_model(2, 1);
  m.quats.pop_back();
  EXPECT_THROW(write_ply_bytes(m), Error);
  m = random_model(2, 1);
  m.sh_degree = 4;
  EXPECT_THROW(write_ply_bytes(m), Error);
}

TEST(PlyCli, BadFileExitsTwoWithOneLine) {
  test::TempDir dir;
  test::write_file(dir.str("bad.ply"), "ply\nformat ascii 1.0\nelement vertex 1\nend_header\n");
  const auto r = test::run_glint("convert " + dir.str("bad.ply") + " " + dir.str("out.splat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "glint: error: " + dir.str("bad.ply") + ": vertex element lacks required property 'x'\n");
  EXPECT_FALSE(std::filesystem::exists(dir.str("out.splat")));
}

}  // namespace
}  // namespace glint
