// Merging cells: a splat on a border belongs to exactly one cell, and cutting a model by
// the plan and merging the pieces gives the model back; plans on disk round-trip and bad
// hand edits are one-line errors naming the cell.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "glint/core/error.h"
#include "glint/partition/merge.h"
#include "glint/partition/plan_file.h"
#include "glint/partition/seam_band.h"
#include "support/survey_builder.h"
#include "test_support.h"

using namespace glint;
using namespace glint::partition;
using namespace glint::test;

namespace {

// A 2 x 2 plan on the world's own axes with cuts at exactly representable values.
Plan hand_plan() {
  Plan p;
  p.shape = {2, 2};
  p.bounds = {-10, 10, -5, 5};
  const GroundRect rects[4][2] = {{{-10, 0.5, -5, -1.25}, {-10, 3, -5, 1}},
                                  {{-10, 0.5, -1.25, 5}, {-10, 3, -3, 5}},
                                  {{0.5, 10, -5, 2.75}, {-2, 10, -5, 5}},
                                  {{0.5, 10, 2.75, 5}, {-2, 10, 0, 5}}};
  for (const auto& r : rects) {
    Cell c;
    c.core = r[0];
    c.expanded = r[1];
    c.train_views = {0};
    p.cells.push_back(c);
  }
  p.train_views = 1;
  return p;
}

GaussianModel random_model(std::size_t n, const GroundRect& area, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(static_cast<float>(area.u0), static_cast<float>(area.u1)),
      v(static_cast<float>(area.v0), static_cast<float>(area.v1)), any(-1, 1);
  GaussianModel m;
  m.sh_degree = 3;
  m.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    m.means[3 * i] = u(rng);
    m.means[3 * i + 1] = v(rng);
    m.means[3 * i + 2] = any(rng);
  }
  for (auto* a : {&m.log_scales, &m.quats, &m.opacity_logits, &m.sh_dc, &m.sh_rest})
    for (float& x : *a) x = any(rng);
  return m;
}

std::size_t owners_of(const Plan& p, const GaussianModel& m, std::size_t row) {
  GaussianModel one = take_rows(m, {row});
  std::size_t owners = 0;
  for (std::size_t k = 0; k < p.cells.size(); ++k) owners += owned_rows(p, k, one).size();
  return owners;
}

// Writes a plan, lets `edit` change its JSON, and returns load_plan's error.
std::string error_after_edit(const Plan& p, const std::function<void(nlohmann::json&)>& edit) {
  TempDir dir;
  save_plan(dir.str(), p);
  nlohmann::json j = nlohmann::json::parse(read_file(dir.str("plan.json")));
  edit(j);
  write_file(dir.str("plan.json"), j.dump(1));
  try {
    load_plan(dir.str());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PartitionMerge, SplatOnABorderGoesToExactlyOneCell) {
  const Plan p = hand_plan();
  GaussianModel m = random_model(12, p.bounds, 1);
  // On the strip cut, on each row cut, on the corner where three cells meet, on the
  // bounds' edges and beyond them.
  const float on[12][2] = {{0.5f, 0.f},   {0.5f, -1.25f}, {0.5f, 2.75f}, {-3.f, -1.25f}, {4.f, 2.75f}, {0.5f, 5.f},
                           {10.f, 5.f},   {-10.f, -5.f},  {10.f, 0.f},   {25.f, 2.75f}, {0.5f, -40.f}, {-30.f, 9.f}};
  for (std::size_t i = 0; i < 12; ++i) {
    m.means[3 * i] = on[i][0];
    m.means[3 * i + 1] = on[i][1];
  }
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(owners_of(p, m, i), 1u) << "splat " << i;
  // The half-open rule: a cut belongs to the cell above it.
  EXPECT_EQ(p.owner({0.5, 0, 0}), 2u);
  EXPECT_EQ(p.owner({0.5, 2.75, 0}), 3u);
  EXPECT_EQ(p.owner({-3, -1.25, 0}), 1u);
  EXPECT_EQ(p.owner({10, 5, 0}), 3u);
}

TEST(PartitionMerge, CuttingByThePlanAndMergingGivesTheModelBack) {
  const Plan p = hand_plan();
  // Splats over and beyond the bounds.
  const GaussianModel m = random_model(20000, p.bounds.grown(4, 4), 2);
  std::vector<GaussianModel> cells;
  std::size_t pieces = 0;
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    cells.push_back(cut_cell(p, k, m));
    pieces += cells.back().size();
  }
  EXPECT_GT(pieces, m.size());  // the expanded rectangles overlap
  std::vector<std::size_t> kept;
  const GaussianModel merged = merge_cells(p, cells, &kept);
  // The model's splats grouped by owner, each group in the model's order.
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < p.cells.size(); ++k)
    for (std::size_t i = 0; i < m.size(); ++i)
      if (p.owner({m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]}) == k) order.push_back(i);
  const GaussianModel want = take_rows(m, order);
  EXPECT_EQ(merged.size(), m.size());
  EXPECT_EQ(merged.means, want.means);
  EXPECT_EQ(merged.log_scales, want.log_scales);
  EXPECT_EQ(merged.quats, want.quats);
  EXPECT_EQ(merged.opacity_logits, want.opacity_logits);
  EXPECT_EQ(merged.sh_dc, want.sh_dc);
  EXPECT_EQ(merged.sh_rest, want.sh_rest);
  std::size_t total = 0;
  for (std::size_t k : kept) total += k;
  EXPECT_EQ(total, m.size());
}

TEST(PartitionMerge, DegreesMergeUpAndTheFilterMustAgree) {
  const Plan p = hand_plan();
  std::vector<GaussianModel> cells;
  for (std::size_t k = 0; k < 4; ++k) {
    cells.push_back(random_model(50, p.cells[k].core, 10 + k));
    cells.back().sh_degree = static_cast<int>(k % 3);
  }
  EXPECT_EQ(merge_cells(p, cells).sh_degree, 2);
  cells[2].antialiased = true;
  try {
    merge_cells(p, cells);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cell 2"), std::string::npos) << e.what();
  }
}

TEST(PartitionMerge, LooksAcrossABorder) {
  SurveySpec spec;
  const Dataset d = make_survey(spec);
  const Plan p = make_plan(d, PlanSettings{});
  // Straight down at the middle of cell 0's core (far from its edges) and at the point
  // where the four cells meet.
  const Cell& c = p.cells[0];
  const Vec3d inside = p.frame.to_world({c.core.u1 - 20, c.core.v1 - 10, 10});
  ASSERT_EQ(p.owner(inside), 0u);
  const Vec3d corner = p.frame.to_world({c.core.u1, c.core.v1, 30});
  const auto looking_down = [&](Vec3d at) {
    Camera cam = survey_camera(at, 0, M_PI / 2 - 1e-9, 40);
    return looks_across_border(p, cam);
  };
  EXPECT_FALSE(looking_down(inside));
  EXPECT_TRUE(looking_down(corner));
}

TEST(PartitionMerge, BorderDistanceIsToTheNearestCoreEdgeAnotherCellShares) {
  const Plan p = hand_plan();
  // cell 0's core is [-10, 0.5) x [-5, -1.25): its shared edges are u = 0.5 and v = -1.25
  EXPECT_DOUBLE_EQ(border_distance(p, {-3, -3, 0}), 1.75);
  EXPECT_DOUBLE_EQ(border_distance(p, {-3, -3, 7}), 1.75);  // on the ground: height is no distance
  EXPECT_DOUBLE_EQ(border_distance(p, {-8, -4, 0}), 2.75);
  // beyond the bounds: clamped to their corner (-10, -5) as ownership is
  EXPECT_DOUBLE_EQ(border_distance(p, {-30, -40, 0}), 3.75);
  // cell 2 ([0.5, 10) x [-5, 2.75)) and cell 3 ([0.5, 10] x [2.75, 5])
  EXPECT_DOUBLE_EQ(border_distance(p, {8, -4.5, 0}), 7.25);
  EXPECT_DOUBLE_EQ(border_distance(p, {5, 4, 0}), 1.25);
  EXPECT_DOUBLE_EQ(border_distance(p, {0.5, 0, 0}), 0.0);  // on a cut
  Plan one = p;
  one.shape = {1, 1};
  one.cells.resize(1);
  one.cells[0].core = p.bounds;
  EXPECT_TRUE(std::isinf(border_distance(one, {0, 0, 0})));
}

TEST(PartitionSeamBand, WidthsFollowTheShortestCoreSide) {
  const Plan p = hand_plan();
  // cores' sides within the bounds: 10.5 x 3.75, 10.5 x 6.25, 9.5 x 7.75, 9.5 x 2.25
  const SeamWidths w = seam_widths(p);
  EXPECT_DOUBLE_EQ(w.train, 0.225);
  EXPECT_DOUBLE_EQ(w.supervise, 0.16875);
  EXPECT_DOUBLE_EQ(w.keep, 0.1125);
  Plan one = p;
  one.cells.resize(1);
  one.cells[0].core = p.bounds;
  EXPECT_EQ(seam_widths(one).train, 0.0);
}

TEST(PartitionSeamBand, RowsAndPixelsNearBorders) {
  const Plan p = hand_plan();
  GaussianModel m = random_model(4, p.bounds, 3);
  const float at[4][2] = {{0.4f, -3.f}, {-3.f, -3.f}, {0.5f, 0.f}, {7.f, 2.5f}};  // 0.1, 1.75, 0, 0.25 from a border
  for (std::size_t i = 0; i < 4; ++i) {
    m.means[3 * i] = at[i][0];
    m.means[3 * i + 1] = at[i][1];
  }
  EXPECT_EQ(rows_near_borders(p, m, 0.2), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(rows_near_borders(p, m, 0.3), (std::vector<std::size_t>{0, 2, 3}));
  // Straight down from 10 units over (0.5, -3): pixel (x, y) shows the ground point
  // (0.5 + x + 0.5 - 16, -3 - (y + 0.5 - 12)).
  const Camera cam = straight_down_camera({0.5, -3, 10}, 32, 24, 10);
  ImageF depth(32, 24, 1, 10.f);
  depth.data[5 * 32 + 15] = 0;  // nothing drawn there
  const Image8 mask = border_pixels(p, cam, depth, 1.0);
  ASSERT_EQ(mask.width, 32);
  ASSERT_EQ(mask.channels, 1);
  EXPECT_EQ(mask.row(11)[15], 255);  // (0, -2.5): 0.5 from u = 0.5
  EXPECT_EQ(mask.row(11)[19], 0);    // (4, -2.5): cell 2's, 3.5 from u = 0.5 and 5.25 from v = 2.75
  EXPECT_EQ(mask.row(20)[16], 255);  // (1, -11.5): past the bounds, clamped to (1, -5): 0.5 from u = 0.5
  EXPECT_EQ(mask.row(2)[8], 0);      // (-7, 6.5): clamped to (-7, 5), cell 1's, 6.25 from v = -1.25
  EXPECT_EQ(mask.row(5)[15], 0);     // no surface
}

TEST(PartitionFile, RoundTrip) {
  SurveySpec spec;
  const Dataset d = make_survey(spec);
  Plan p = make_plan(d, PlanSettings{});
  p.dataset = "/data/survey";
  p.dataset_args = {"--downscale=2"};
  p.train_args = {"--steps", "7000"};
  TempDir dir;
  save_plan(dir.str(), p);
  EXPECT_TRUE(is_plan(dir.str()));
  EXPECT_TRUE(is_plan(dir.str("plan.json")));
  const Plan q = load_plan(dir.str());
  EXPECT_EQ(q.dataset, p.dataset);
  EXPECT_EQ(q.dataset_args, p.dataset_args);
  EXPECT_EQ(q.train_args, p.train_args);
  EXPECT_EQ(q.bounds, p.bounds);
  ASSERT_EQ(q.cells.size(), p.cells.size());
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    EXPECT_EQ(q.cells[k].core, p.cells[k].core);  // exact: ownership must not move
    EXPECT_EQ(q.cells[k].expanded, p.cells[k].expanded);
    EXPECT_EQ(q.cells[k].train_views, p.cells[k].train_views);
    EXPECT_EQ(q.cells[k].test_views, p.cells[k].test_views);
  }
  EXPECT_EQ(q.frame.up.z, p.frame.up.z);
}

TEST(PartitionFile, HandEditsAreOneLineErrorsNamingTheCell) {
  SurveySpec spec;
  const Plan p = make_plan(make_survey(spec), PlanSettings{});
  const auto expect_error = [](const std::string& e, const std::vector<std::string>& parts) {
    EXPECT_FALSE(e.empty()) << "no error";
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    for (const std::string& s : parts) EXPECT_NE(e.find(s), std::string::npos) << "'" << s << "' not in: " << e;
  };
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"].erase(2); }), {"plan.json", "cell 2", "missing"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"][1]["train_views"].push_back(250); }),
               {"cell 1", "250", "out of range"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"][3]["test_views"].push_back(-1); }),
               {"cell 3", "out of range"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"][0]["train_views"].push_back(j["cells"][0]["train_views"][0]); }),
               {"cell 0", "twice"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"][1]["core"]["v"][0] = -1e6; }), {"cell 1"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) {
                 j["cells"][3]["core"]["u"][0] = j["cells"][3]["core"]["u"][0].get<double>() + 1;
               }),
               {"gap"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"][2]["core"]["u"][1] = j["cells"][2]["core"]["u"][0]; }),
               {"cell 2", "empty"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["cells"][1].erase("expanded"); }), {"cell 1", "expanded"});
  expect_error(error_after_edit(p, [](nlohmann::json& j) { j["glint_plan"] = 7; }), {"version"});
}
