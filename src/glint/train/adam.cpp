#include "glint/train/adam.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace glint {

// Below this many values a parallel region costs more than the update. Training opens
// parallel regions every few hundred microseconds, so the threads are still awake: from
// 64k values (kMinParallel * 4) two threads halve the update (20k splats: 1.38 -> 0.78 ms
// a step).
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
// clones compute the same floats.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void adam_span(float* __restrict p, const float* __restrict gr, float* __restrict m, float* __restrict v, long n,
               float b1, float a1, float b2, float a2, float bc2_sqrt, float eps, float step_size) {
  for (long j = 0; j < n; ++j) {
    const float gj = gr[j];
    const float mj = b1 * m[j] + a1 * gj;
    const float vj = b2 * v[j] + a2 * gj * gj;
    m[j] = mj;
    v[j] = vj;
    const float denom = std::sqrt(vj) / bc2_sqrt + eps;
    p[j] -= step_size * (mj / denom);
  }
}
}  // namespace

void adam_update(AdamMoments& s, const AdamParamGroup& g, const AdamOptions& o, const std::uint8_t* visible) {
  const std::size_t n = g.rows * static_cast<std::size_t>(g.width);
  if (s.name != g.name || s.width != g.width || s.m.size() != n || s.v.size() != n)
    throw std::invalid_argument("adam: group " + g.name + " (" + std::to_string(g.rows) + " rows of " +
                                std::to_string(g.width) + ") does not match its moments " + s.name + " (" +
                                std::to_string(s.m.size()) + " values, width " + std::to_string(s.width) + ")");
  if (n > 0 && (!g.params || !g.grads)) throw std::invalid_argument("adam: group " + g.name + " has no data");
  s.step += 1;
  const double t = static_cast<double>(s.step);
  const float b1 = o.beta1, b2 = o.beta2, eps = o.eps;
  const float step_size = static_cast<float>(g.lr / (1.0 - std::pow(static_cast<double>(b1), t)));
  const float bc2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(b2), t)));
  const int w = g.width;
  float* p = g.params;
  const float* gr = g.grads;
  float* m = s.m.data();
  float* v = s.v.data();
  const long rows = static_cast<long>(g.rows);
  const float a1 = 1.f - b1, a2 = 1.f - b2;
  const int used = g.used_width >= 0 && g.used_width < w ? g.used_width : w;
  if (used == 0) return;
  // Elementwise and memory-bound, but one thread does not saturate the memory bus.
  if (!visible && used == w) {
    const long total = static_cast<long>(n);
#pragma omp parallel for schedule(static) if (n >= kMinParallel * 4)
    for (long b = 0; b < total; b += 4096)
      adam_span(p + b, gr + b, m + b, v + b, std::min(4096L, total - b), b1, a1, b2, a2, bc2_sqrt, eps, step_size);
    return;
  }
  const std::size_t updated = static_cast<std::size_t>(rows) * static_cast<std::size_t>(used);
#pragma omp parallel for schedule(static) if (updated >= kMinParallel * 4)
  for (long b = 0; b < rows; b += 256) {
    const long end = std::min(rows, b + 256);
    for (long r = b; r < end;) {
      if (visible && !visible[r]) {
        ++r;
        continue;
      }
      long e = r + 1;  // whole rows: a run of visible rows is updated as one span
      if (used == w)
        while (e < end && (!visible || visible[e])) ++e;
      adam_span(p + r * w, gr + r * w, m + r * w, v + r * w, (e - r - 1) * w + used, b1, a1, b2, a2, bc2_sqrt, eps,
                step_size);
      r = e;
    }
  }
}

void Adam::step(std::span<const AdamParamGroup> groups, const std::uint8_t* visible) {
  if (groups.size() != groups_.size())
    throw std::invalid_argument("adam: step with " + std::to_string(groups.size()) + " groups, " +
                                std::to_string(groups_.size()) + " registered");
  for (std::size_t i = 0; i < groups.size(); ++i) adam_update(groups_[i], groups[i], options_, visible);
}

}  // namespace glint
