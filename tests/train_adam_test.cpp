#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "glint/train/adam.h"
#include "glint/train/schedule.h"

using namespace glint;

namespace {

// The Adam formula written out by hand, in the same float operations as documented.
struct RefAdam {
  std::vector<float> m, v;
  int t = 0;
  void step(std::vector<float>& p, const std::vector<float>& g, float lr, const std::vector<int>& rows_on, int width) {
    if (m.empty()) m.assign(p.size(), 0.f), v.assign(p.size(), 0.f);
    ++t;
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-15f;
    float step_size = static_cast<float>(lr / (1.0 - std::pow(double(b1), double(t))));
    float bc2 = static_cast<float>(std::sqrt(1.0 - std::pow(double(b2), double(t))));
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!rows_on.empty() && !rows_on[i / width]) continue;
      m[i] = b1 * m[i] + (1.f - b1) * g[i];
      v[i] = b2 * v[i] + (1.f - b2) * g[i] * g[i];
      p[i] -= step_size * (m[i] / (std::sqrt(v[i]) / bc2 + eps));
    }
  }
};

bool bits_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(TrainAdam, MatchesHandWrittenFormula) {
  const int rows = 37, width = 3;
  std::mt19937 gen(1);
  std::normal_distribution<float> nd;
  std::vector<float> p(rows * width), q(rows * width), rp(rows * width);
  for (auto& x : p) x = nd(gen);
  q = p;
  rp = p;
  Adam adam;
  adam.add_group("a", width, rows);
  adam.add_group("b", 1, rows);  // second group, different lr, rows of width 1
  std::vector<float> q1(rows, 0.5f), rq1 = q1;
  RefAdam ref, ref1;
  for (int s = 0; s < 5; ++s) {
    std::vector<float> g(rows * width), g1(rows);
    for (auto& x : g) x = nd(gen);
    for (auto& x : g1) x = nd(gen) * 1e-3f;
    float lr = 0.01f * (s + 1);
    AdamParamGroup groups[] = {{"a", p.data(), g.data(), rows, width, lr}, {"b", q1.data(), g1.data(), rows, 1, 0.05f}};
    adam.step(groups);
    ref.step(rp, g, lr, {}, width);
    ref1.step(rq1, g1, 0.05f, {}, 1);
    ASSERT_TRUE(bits_equal(p, rp)) << "step " << s;
    ASSERT_TRUE(bits_equal(q1, rq1)) << "step " << s;
    ASSERT_TRUE(bits_equal(adam.group("a").m, ref.m));
    ASSERT_TRUE(bits_equal(adam.group("a").v, ref.v));
  }
  EXPECT_EQ(adam.group("a").step, 5u);
  // First step of Adam moves every coordinate by ~lr * sign(g).
  Adam fresh;
  fresh.add_group("x", 1, 1);
  float x = 1.f, gx = -3.f;
  AdamParamGroup one[] = {{"x", &x, &gx, 1, 1, 0.1f}};
  fresh.step(one);
  EXPECT_NEAR(x, 1.1f, 1e-6f);
}

TEST(TrainAdam, InvisibleRowsKeepParamsAndMoments) {
  const int rows = 6, width = 2;
  std::vector<float> p(rows * width, 1.f), rp = p;
  Adam adam;
  adam.add_group("p", width, rows);
  RefAdam ref;
  std::vector<std::uint8_t> vis = {1, 0, 1, 1, 0, 0};
  std::vector<int> vis_i(vis.begin(), vis.end());
  for (int s = 0; s < 3; ++s) {
    std::vector<float> g(rows * width);
    for (int i = 0; i < rows * width; ++i) g[i] = 0.1f * (i + 1) * (s % 2 ? -1.f : 1.f);
    std::vector<float> before_m = adam.group("p").m, before_p = p;
    AdamParamGroup gr[] = {{"p", p.data(), g.data(), rows, width, 0.01f}};
    adam.step(gr, vis.data());
    ref.step(rp, g, 0.01f, vis_i, width);
    EXPECT_TRUE(bits_equal(p, rp));
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < width; ++j) {
        int i = r * width + j;
        if (vis[r]) {
          EXPECT_NE(p[i], before_p[i]);
        } else {
          EXPECT_EQ(p[i], before_p[i]);
          EXPECT_EQ(adam.group("p").m[i], 0.f);
          EXPECT_EQ(adam.group("p").v[i], 0.f);
        }
      }
  }
  EXPECT_EQ(adam.group("p").step, 3u);  // group count advances regardless of the mask
}

// Skipping the columns past used_width (the SH coefficients above the degree in use) gives
// the same bits as updating them all, as long as their gradients have been zero so far: as
// the SH degree rises from 0 to 1 to 3, with and without a visibility mask.
TEST(TrainAdam, UsedWidthMatchesTheFullUpdate) {
  const int rows = 300, width = 45;  // more than one block of 256 rows
  std::mt19937 gen(7);
  std::normal_distribution<float> nd;
  std::vector<std::uint8_t> vis(rows);
  for (auto& x : vis) x = std::uint8_t(gen() % 3 != 0);
  const std::uint8_t* masks[] = {nullptr, vis.data()};
  for (const std::uint8_t* mask : masks) {
    std::vector<float> full(rows * width), skip;
    for (auto& x : full) x = nd(gen);
    skip = full;
    Adam a_full, a_skip;
    a_full.add_group("rest", width, rows);
    a_skip.add_group("rest", width, rows);
    for (int s = 0; s < 9; ++s) {
      const int used = s < 3 ? 0 : s < 6 ? 9 : 45;  // degree 0, 1, then 3
      std::vector<float> g(rows * width, 0.f);
      for (int r = 0; r < rows; ++r)
        for (int j = 0; j < used; ++j) g[std::size_t(r) * width + std::size_t(j)] = nd(gen);
      AdamParamGroup gf[] = {{"rest", full.data(), g.data(), rows, width, 0.01f}};
      AdamParamGroup gs[] = {{"rest", skip.data(), g.data(), rows, width, 0.01f, used}};
      a_full.step(gf, mask);
      a_skip.step(gs, mask);
      ASSERT_TRUE(bits_equal(full, skip)) << "step " << s;
      ASSERT_TRUE(bits_equal(a_full.group("rest").m, a_skip.group("rest").m)) << "step " << s;
      ASSERT_TRUE(bits_equal(a_full.group("rest").v, a_skip.group("rest").v)) << "step " << s;
    }
    EXPECT_EQ(a_skip.group("rest").step, 9u);  // the bias correction advanced on every step
  }
}

// Groups large enough for threads, several blocks each (one with a partial last block and
// a visibility mask): the same bits as the formula, value by value.
TEST(TrainAdam, ThreadedBlocksMatchTheFormula) {
  const int rows = 30011;
  std::mt19937 gen(3);
  std::normal_distribution<float> nd;
  std::vector<std::uint8_t> vis(rows);
  for (auto& x : vis) x = std::uint8_t(gen() % 4 != 0);
  std::vector<int> vis_i(vis.begin(), vis.end());
  const std::uint8_t* masks[] = {nullptr, vis.data()};
  for (const std::uint8_t* mask : masks) {
    std::vector<float> a(rows * 3), b(rows);
    for (auto& x : a) x = nd(gen);
    for (auto& x : b) x = nd(gen);
    std::vector<float> ra = a, rb = b;
    Adam adam;
    adam.add_group("a", 3, rows);
    adam.add_group("b", 1, rows);
    RefAdam ref_a, ref_b;
    for (int s = 0; s < 3; ++s) {
      std::vector<float> ga(a.size()), gb(b.size());
      for (auto& x : ga) x = nd(gen);
      for (auto& x : gb) x = nd(gen);
      AdamParamGroup groups[] = {{"a", a.data(), ga.data(), rows, 3, 0.01f}, {"b", b.data(), gb.data(), rows, 1, 0.02f}};
      EXPECT_EQ(adam.step(groups, mask), -1);
      ref_a.step(ra, ga, 0.01f, mask ? vis_i : std::vector<int>{}, 3);
      ref_b.step(rb, gb, 0.02f, mask ? vis_i : std::vector<int>{}, 1);
      ASSERT_TRUE(bits_equal(a, ra)) << "step " << s;
      ASSERT_TRUE(bits_equal(b, rb)) << "step " << s;
    }
  }
}

// step() names the first group it left with an inf or NaN, among the values it updated.
TEST(TrainAdam, ReportsTheFirstGroupWithNonFiniteValues) {
  const int rows = 20000;  // the threaded path
  std::vector<float> a(rows * 3, 1.f), b(rows, 1.f), c(rows * 2, 1.f), ga(a.size(), 1.f), gb(b.size(), 1.f),
      gc(c.size(), 1.f);
  Adam adam;
  adam.add_group("a", 3, rows);
  adam.add_group("b", 1, rows);
  adam.add_group("c", 2, rows);
  const auto step = [&](float lr_b, float lr_c, const std::uint8_t* mask = nullptr, int used_c = -1) {
    AdamParamGroup groups[] = {{"a", a.data(), ga.data(), rows, 3, 0.01f},
                               {"b", b.data(), gb.data(), rows, 1, lr_b},
                               {"c", c.data(), gc.data(), rows, 2, lr_c, used_c}};
    return adam.step(groups, mask);
  };
  EXPECT_EQ(step(0.01f, 0.01f), -1);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(step(0.01f, inf), 2);  // an infinite step size: every value of c becomes -inf
  c.assign(c.size(), 1.f);
  EXPECT_EQ(step(inf, inf), 1);  // the first of the two
  b.assign(b.size(), 1.f);
  // a NaN in a column or row the step does not update is not its business
  c.assign(c.size(), 1.f);
  c[1] = std::nanf("");
  EXPECT_EQ(step(0.01f, 0.01f, nullptr, 1), -1);
  std::vector<std::uint8_t> vis(rows, 1);
  vis[0] = 0;
  EXPECT_EQ(step(0.01f, 0.01f, vis.data()), -1);
  vis[0] = 1;
  EXPECT_EQ(step(0.01f, 0.01f, vis.data()), 2);
}

TEST(TrainAdam, MismatchedGroupsAreRejected) {
  Adam adam;
  adam.add_group("p", 3, 4);
  std::vector<float> p(9), g(9);
  AdamParamGroup wrong_rows[] = {{"p", p.data(), g.data(), 3, 3, 0.1f}};
  EXPECT_THROW(adam.step(wrong_rows), std::invalid_argument);
  AdamParamGroup wrong_name[] = {{"q", p.data(), g.data(), 4, 3, 0.1f}};
  EXPECT_THROW(adam.step(wrong_name), std::invalid_argument);
  EXPECT_EQ(adam.group("p").step, 0u);
  // a mismatch in a later group changes nothing in the earlier ones either
  adam.add_group("r", 1, 4);
  std::vector<float> p4(12, 1.f), g4(12, 1.f), r(4), gr(4);
  AdamParamGroup second_wrong[] = {{"p", p4.data(), g4.data(), 4, 3, 0.1f}, {"r", r.data(), gr.data(), 3, 1, 0.1f}};
  EXPECT_THROW(adam.step(second_wrong), std::invalid_argument);
  EXPECT_EQ(adam.group("p").step, 0u);
  EXPECT_EQ(p4, std::vector<float>(12, 1.f));
  EXPECT_THROW(adam.group("nope"), std::invalid_argument);
}

TEST(TrainSchedule, ExponentialDecay) {
  LearningRates lr;
  ExpLrSchedule s = position_lr_schedule(lr, 2.0);
  EXPECT_DOUBLE_EQ(s(0), 3.2e-4);
  EXPECT_NEAR(s(30000), 3.2e-6, 1e-18);
  EXPECT_NEAR(s(60000), 3.2e-6, 1e-18);  // held at the final value
  EXPECT_NEAR(s(15000), std::sqrt(3.2e-4 * 3.2e-6), 1e-15);  // log-linear midpoint
  EXPECT_EQ(s(-1), 0.0);
  ExpLrSchedule d{1.0, 0.1, 100, 10, 0.5};
  EXPECT_NEAR(d(0), 0.5, 1e-12);  // delayed start at delay_mult * lr_init
  EXPECT_NEAR(d(10), std::exp(std::log(1.0) * 0.9 + std::log(0.1) * 0.1), 1e-12);
  EXPECT_EQ(lr.sh_rest, lr.sh_dc / 20);
}

TEST(TrainSchedule, ShDegree) {
  EXPECT_EQ(sh_degree_at(1), 0);
  EXPECT_EQ(sh_degree_at(999), 0);
  EXPECT_EQ(sh_degree_at(1000), 1);
  EXPECT_EQ(sh_degree_at(2999), 2);
  EXPECT_EQ(sh_degree_at(3000), 3);
  EXPECT_EQ(sh_degree_at(100000), 3);
  EXPECT_EQ(sh_degree_at(5000, 1000, 1), 1);
}
