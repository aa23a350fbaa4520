#include "glint/train/adam.h"

#include <cmath>
#include <stdexcept>

namespace glint {

// Below this many values a parallel region costs more than the update (and much more on a
// loaded machine, where waking threads is slow).
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
#pragma omp parallel for schedule(static) if (n >= kMinParallel)
  for (long r = 0; r < rows; ++r) {
    if (visible && !visible[r]) continue;
    for (long j = r * w; j < (r + 1) * w; ++j) {
      const float gj = gr[j];
      m[j] = b1 * m[j] + (1.f - b1) * gj;
      v[j] = b2 * v[j] + (1.f - b2) * gj * gj;
      const float denom = std::sqrt(v[j]) / bc2_sqrt + eps;
      p[j] -= step_size * (m[j] / denom);
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
