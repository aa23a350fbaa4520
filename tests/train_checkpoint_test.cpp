#include <gtest/gtest.h>

#include <cstring>

#include "glint/core/error.h"
#include "glint/train/checkpoint.h"
#include "support/splat_tags.h"
#include "test_support.h"

using namespace glint;

namespace {

TrainCheckpoint sample_checkpoint(std::size_t n) {
  TrainCheckpoint c;
  c.step = 1234;
  c.splats = glint::test::tagged_splats(n);
  c.splats.model.sh_degree = 2;
  c.splats.model.means[0] = -0.0f;  // bitwise: the sign of zero must survive
  c.splats.adam.groups()[kMeans].step = 1234;
  c.splats.adam.groups()[kShRest].step = 77;
  c.splats.adam.set_options({0.8f, 0.99f, 1e-8f});
  c.rng = Rng(99);
  c.rng.next_u64();
  c.options_json = R"({"iterations":30000,"strategy":"adc"})";
  return c;
}

bool bitwise_equal(SplatSet& a, SplatSet& b) {
  auto x = a.arrays(), y = b.arrays();
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].name != y[i].name || x[i].data->size() != y[i].data->size() ||
        std::memcmp(x[i].data->data(), y[i].data->data(), x[i].data->size() * sizeof(float)) != 0)
      return false;
  return true;
}

}  // namespace

// A viewer renders a checkpoint's model with the 2D filter when its run was trained with it.
TEST(TrainCheckpoint, ModelIsMarkedAntialiasedByItsRunsOptions) {
  TrainCheckpoint c = sample_checkpoint(3);
  EXPECT_FALSE(checkpoint_model(c).antialiased);
  c.options_json = R"({"antialiased":false,"strategy":"adc"})";
  EXPECT_FALSE(checkpoint_model(c).antialiased);
  c.options_json = R"({"antialiased":true,"strategy":"adc"})";
  const GaussianModel m = checkpoint_model(c);
  EXPECT_TRUE(m.antialiased);
  EXPECT_EQ(m.means, c.splats.model.means);
}

TEST(TrainCheckpoint, RoundTripIsExact) {
  glint::test::TempDir dir;
  TrainCheckpoint c = sample_checkpoint(9);
  save_checkpoint(dir.str("run.ckpt"), c);
  TrainCheckpoint back = load_checkpoint(dir.str("run.ckpt"));
  EXPECT_EQ(back.step, 1234);
  EXPECT_EQ(back.splats.model.sh_degree, 2);
  EXPECT_TRUE(bitwise_equal(c.splats, back.splats));
  EXPECT_TRUE(std::signbit(back.splats.model.means[0]));
  EXPECT_EQ(back.splats.adam, c.splats.adam);  // options, step counts, moments
  EXPECT_EQ(back.rng, c.rng);
  EXPECT_EQ(back.rng.next_u64(), c.rng.next_u64());
  EXPECT_EQ(back.options_json, c.options_json);
  // Empty sets too.
  TrainCheckpoint empty;
  TrainCheckpoint e2 = parse_checkpoint(serialize_checkpoint(empty), "empty");
  EXPECT_EQ(e2.splats.size(), 0u);
}

TEST(TrainCheckpoint, TruncationAndCorruptionAreErrors) {
  const std::string bytes = serialize_checkpoint(sample_checkpoint(3));
  for (std::size_t len = 0; len < bytes.size(); len += (len < 200 ? 1 : 37))
    EXPECT_THROW(parse_checkpoint(bytes.substr(0, len), "t.ckpt"), Error) << "length " << len;
  for (std::size_t at = 0; at < bytes.size(); at += 13) {
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x40);
    EXPECT_THROW(parse_checkpoint(bad, "c.ckpt"), Error) << "byte " << at;
  }
  try {
    parse_checkpoint(bytes.substr(0, 100), "short.ckpt");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("short.ckpt"), std::string::npos);
  }
}

TEST(TrainCheckpoint, HugeCountsWithValidChecksumAreRejected) {
  std::string bytes = serialize_checkpoint(sample_checkpoint(2));
  // META payload starts after magic(8) + version(4) + tag(4) + size(8); count at +12.
  const std::size_t count_at = 8 + 4 + 4 + 8 + 8 + 4;
  const std::uint64_t huge = 1ull << 60;
  std::memcpy(&bytes[count_at], &huge, 8);
  const std::size_t body = bytes.size() - 8;
  std::uint64_t h = fnv1a64(bytes.data(), body);
  std::memcpy(&bytes[body], &h, 8);
  EXPECT_THROW(parse_checkpoint(bytes, "huge.ckpt"), Error);
  EXPECT_THROW(load_checkpoint("/nonexistent/x.ckpt"), Error);
}

#include "glint/train/mcmc.h"

namespace {

// A stand-in training step that uses every stateful piece: random gradients from the RNG,
// Adam, MCMC noise and refinement.
void fake_step(TrainCheckpoint& c) {
  c.step += 1;
  SplatSet& s = c.splats;
  GaussianModel g = s.model;
  for (auto* v : {&g.means, &g.log_scales, &g.quats, &g.opacity_logits, &g.sh_dc, &g.sh_rest})
    for (float& x : *v) x = static_cast<float>(c.rng.normal()) * 0.01f;
  s.adam_step(grads_of(g), {1e-3f, 5e-3f, 1e-3f, 5e-2f, 2.5e-3f, 1.25e-4f});
  McmcOptions o;
  o.refine_from = 0;
  o.refine_every = 3;
  o.max_splats = 40;
  mcmc_add_noise(s, 1e-4f, o, c.rng);
  mcmc_step(s, c.step, o, c.rng);
}

}  // namespace

TEST(TrainCheckpoint, ResumeEqualsUninterruptedRun) {
  TrainCheckpoint start;
  GaussianModel m;
  m.resize(20);
  Rng init(4);
  for (float& x : m.means) x = static_cast<float>(init.normal());
  for (float& x : m.log_scales) x = -3.f;
  for (std::size_t i = 0; i < 20; ++i) m.quats[4 * i] = 1, m.opacity_logits[i] = i % 3 ? 0.f : -8.f;
  start.splats = SplatSet(m);
  start.rng = Rng(11);

  TrainCheckpoint straight = start;
  for (int i = 0; i < 20; ++i) fake_step(straight);

  TrainCheckpoint first = start;
  for (int i = 0; i < 8; ++i) fake_step(first);
  TrainCheckpoint resumed = parse_checkpoint(serialize_checkpoint(first), "mid.ckpt");
  for (int i = 0; i < 12; ++i) fake_step(resumed);

  EXPECT_EQ(resumed.step, straight.step);
  EXPECT_GT(straight.splats.size(), 20u);
  EXPECT_TRUE(bitwise_equal(resumed.splats, straight.splats));
  EXPECT_EQ(resumed.rng, straight.rng);
}
