#include "glint/train/adam.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "glint/train/adam_value.h"

namespace glint {

// Below this many values a parallel region costs more than the update. Training opens
// parallel regions so often that the threads are still awake: from 64k values
// (kMinParallel * 4) two threads halve the update.
constexpr std::size_t kMinParallel = 16384;

void Adam::add_group(std::string name, int width, std::size_t rows) {
  if (width <= 0) throw std::invalid_argument("adam: group " + name + " needs a positive width");
  AdamMoments g;
  g.name = std::move(name);
  g.width = width;
  g.m.assign(rows * static_cast<std::size_t>(width), 0.f);
  g.v.assign(rows * static_cast<std::size_t>(width), 0.f);
  groups_.push_back(std::move(g));
}

AdamMoments& Adam::group(std::string_view name) {
  for (auto& g : groups_)
    if (g.name == name) return g;
  throw std::invalid_argument("adam: no group named " + std::string(name));
}

const AdamMoments& Adam::group(std::string_view name) const {
  return const_cast<Adam*>(this)->group(name);
}

namespace {
// The update of n consecutive values; a plain loop the compiler vectorises (adam.cpp is
// built with -fno-math-errno so that sqrt vectorises), cloned for AVX2 without FMA so both
// clones compute the same floats. Returns nonzero when an updated parameter is not finite
// (an all-ones exponent): an integer OR, which vectorises where a float sum would not.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
unsigned adam_span(float* __restrict p, const float* __restrict gr, float* __restrict m, float* __restrict v, long n,
                   const AdamConsts c) {
  unsigned bad = 0;
  for (long j = 0; j < n; ++j) bad |= adam_value(p[j], gr[j], m[j], v[j], c);
  return bad;
}

// One group's update as the spans see it.
struct GroupUpdate {
  float* p;
  const float* gr;
  float* m;
  float* v;
  long rows;
  int width, used;
  float step_size, bc2_sqrt;
};

AdamConsts adam_consts(const GroupUpdate& u, const AdamOptions& o) {
  return {o.beta1, 1.f - o.beta1, o.beta2, 1.f - o.beta2, u.bc2_sqrt, o.eps, u.step_size};
}

// Rows [r0, r1) of a group: one span when every value is updated, else a span per run of
// visible rows (or per row when only the first `used` columns are).
unsigned update_rows(const GroupUpdate& u, long r0, long r1, const std::uint8_t* visible, const AdamOptions& o) {
  const AdamConsts c = adam_consts(u, o);
  const long w = u.width;
  const auto span = [&](long r, long n) { return adam_span(u.p + r * w, u.gr + r * w, u.m + r * w, u.v + r * w, n, c); };
  if (!visible && u.used == u.width) return span(r0, (r1 - r0) * w);
  unsigned bad = 0;
  for (long r = r0; r < r1;) {
    if (visible && !visible[r]) {
      ++r;
      continue;
    }
    long e = r + 1;  // whole rows: a run of visible rows is updated as one span
    if (u.used == u.width)
      while (e < r1 && (!visible || visible[e])) ++e;
    bad |= span(r, (e - r - 1) * w + u.used);
    r = e;
  }
  return bad;
}

void check_group(const AdamMoments& s, const AdamParamGroup& g) {
  const std::size_t n = g.rows * static_cast<std::size_t>(g.width);
  if (s.name != g.name || s.width != g.width || s.m.size() != n || s.v.size() != n)
    throw std::invalid_argument("adam: group " + g.name + " (" + std::to_string(g.rows) + " rows of " +
                                std::to_string(g.width) + ") does not match its moments " + s.name + " (" +
                                std::to_string(s.m.size()) + " values, width " + std::to_string(s.width) + ")");
  if (n > 0 && (!g.params || !g.grads)) throw std::invalid_argument("adam: group " + g.name + " has no data");
}

// Advances a (checked) group's step count; the values its spans use.
GroupUpdate prepare(AdamMoments& s, const AdamParamGroup& g, const AdamOptions& o) {
  s.step += 1;
  const double t = static_cast<double>(s.step);
  GroupUpdate u;
  u.p = g.params;
  u.gr = g.grads;
  u.m = s.m.data();
  u.v = s.v.data();
  u.rows = static_cast<long>(g.rows);
  u.width = g.width;
  u.used = g.used_width >= 0 && g.used_width < g.width ? g.used_width : g.width;
  u.step_size = static_cast<float>(g.lr / (1.0 - std::pow(static_cast<double>(o.beta1), t)));
  u.bc2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), t)));
  return u;
}

// Rows per block: about kBlockValues values, the unit the threads share.
constexpr long kBlockValues = 4096;
}  // namespace

int Adam::step(std::span<const AdamParamGroup> groups, const std::uint8_t* visible) {
  if (groups.size() != groups_.size())
    throw std::invalid_argument("adam: step with " + std::to_string(groups.size()) + " groups, " +
                                std::to_string(groups_.size()) + " registered");
  if (groups.size() > 32) throw std::invalid_argument("adam: more than 32 groups");
  for (std::size_t i = 0; i < groups.size(); ++i) check_group(groups_[i], groups[i]);  // all before any change
  // Every group's blocks in one parallel region: per group, only the largest were worth
  // threads, and the rest ran on one while the other waited (20k splats at SH degree 0:
  // four of the five updated groups). Block b belongs to the group whose range of block
  // numbers holds it (at most 32 groups: no list of blocks is built).
  std::array<GroupUpdate, 32> ups;
  std::array<long, 33> first_block{};  // group i's blocks: [first_block[i], first_block[i + 1])
  std::array<long, 32> rows_per_block{};
  long updated = 0;
  const int ng = static_cast<int>(groups.size());
  for (int i = 0; i < ng; ++i) {
    ups[i] = prepare(groups_[i], groups[i], options_);
    const GroupUpdate& u = ups[i];
    rows_per_block[i] = std::max(1L, kBlockValues / u.width);
    const long blocks = u.used == 0 ? 0 : (u.rows + rows_per_block[i] - 1) / rows_per_block[i];
    first_block[i + 1] = first_block[i] + blocks;
    updated += u.rows * u.used;
  }
  const long nb = first_block[ng];
  std::uint32_t bad = 0;  // bit i: group i has a non-finite value
  // Elementwise and memory-bound, but one thread does not saturate the memory bus.
#pragma omp parallel for schedule(static) reduction(| : bad) if (updated >= static_cast<long>(kMinParallel) * 4)
  for (long b = 0; b < nb; ++b) {
    int i = 0;
    while (b >= first_block[i + 1]) ++i;
    const long r0 = (b - first_block[i]) * rows_per_block[i];
    if (update_rows(ups[i], r0, std::min(ups[i].rows, r0 + rows_per_block[i]), visible, options_)) bad |= 1u << i;
  }
  return bad ? __builtin_ctz(bad) : -1;
}

}  // namespace glint
