#include "glint/train/mcmc.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "glint/core/math.h"
#include "glint/train/mcmc_edits.h"
#include "glint/train/mcmc_noise.h"

namespace glint {
namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

using BinomTable = std::array<std::array<double, kRelocationMaxN>, kRelocationMaxN>;

const BinomTable& binomials() {
  static const BinomTable table = [] {
    BinomTable t{};
    for (int n = 0; n < kRelocationMaxN; ++n) {
      t[n][0] = 1;
      for (int k = 1; k <= n; ++k) t[n][k] = t[n - 1][k - 1] + (k < n ? t[n - 1][k] : 0.0);
    }
    return t;
  }();
  return table;
}

// Draws `count` indices into `weights` with probability proportional to the weight (with
// replacement). Cumulative sums in double, sequential: fixed order, deterministic.
std::vector<std::uint32_t> sample_proportional(const std::vector<double>& weights, std::size_t count, Rng& rng) {
  std::vector<double> cdf(weights.size());
  double total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) cdf[i] = total += weights[i];
  std::vector<std::uint32_t> out;
  if (!(total > 0)) return out;
  out.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    double u = rng.uniform() * total;
    auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(it - cdf.begin()), weights.size() - 1);
    while (weights[i] <= 0 && i > 0) --i;  // never land on a zero-weight entry at the end
    out.push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

// New opacity logit and log scale for every sampled source, computed from the values
// before any of them changes (a source may be sampled several times).
struct Relocated {
  std::vector<float> logit;      // per sample
  std::vector<float> log_scale;  // per sample, 3 each
};

Relocated relocated_params(const std::vector<float>& logits, const std::vector<float>& log_scales,
                           const std::vector<std::uint32_t>& samples, const McmcOptions& o) {
  std::vector<int> times(logits.size(), 0);
  for (std::uint32_t s : samples) ++times[s];
  Relocated r;
  r.logit.resize(samples.size());
  r.log_scale.resize(samples.size() * 3);
  const double max_o = 1.0 - std::numeric_limits<float>::epsilon();
  for (std::size_t k = 0; k < samples.size(); ++k) {
    const std::uint32_t s = samples[k];
    const int n = times[s] + 1;
    const double op = sigmoid(logits[s]);
    const double o_new = std::clamp(relocation_opacity(op, n), static_cast<double>(o.min_opacity), max_o);
    r.logit[k] = static_cast<float>(std::log(o_new / (1.0 - o_new)));
    const float log_f = static_cast<float>(std::log(relocation_scale_factor(op, n)));
    for (int a = 0; a < 3; ++a) r.log_scale[3 * k + a] = log_scales[3 * s + a] + log_f;
  }
  return r;
}

void set_opacity_scale(SplatSet& set, std::uint32_t row, const Relocated& r, std::size_t k) {
  set.model.opacity_logits[row] = r.logit[k];
  for (int a = 0; a < 3; ++a) set.model.log_scales[3 * row + a] = r.log_scale[3 * k + a];
}

}  // namespace

double relocation_opacity(double opacity, int n) {
  n = std::clamp(n, 1, kRelocationMaxN);
  return 1.0 - std::pow(1.0 - opacity, 1.0 / n);
}

double relocation_scale_factor(double opacity, int n) {
  n = std::clamp(n, 1, kRelocationMaxN);
  const BinomTable& C = binomials();
  const double o_new = relocation_opacity(opacity, n);
  double denom = 0;
  for (int i = 1; i <= n; ++i)
    for (int k = 0; k <= i - 1; ++k)
      denom += C[i - 1][k] * ((k % 2 ? -1.0 : 1.0) / std::sqrt(k + 1.0)) * std::pow(o_new, k + 1);
  return denom > 0 ? opacity / denom : 1.0;
}

void mcmc_add_noise(SplatSet& set, float means_lr, const McmcOptions& o, Rng& rng) {
  const std::uint64_t seed = rng.next_u64();
  GaussianModel& m = set.model;
  const long n = static_cast<long>(set.size());
  const float scale = o.noise_lr * means_lr;
#pragma omp parallel for schedule(static) if (n >= 4096)
  for (long i = 0; i < n; ++i) {
    const float op = sigmoid(m.opacity_logits[i]);
    const float gate = 1.f / (1.f + std::exp(-o.noise_k * ((1.f - op) - o.noise_t)));
    float zs[3];
    mcmc_noise_normals(seed, static_cast<std::size_t>(i), zs);
    const Vec3f z{zs[0], zs[1], zs[2]};
    const Mat3f R = quat_to_rotmat(load_quat(m.quats.data(), i));
    const Vec3f s{std::exp(m.log_scales[3 * i]), std::exp(m.log_scales[3 * i + 1]), std::exp(m.log_scales[3 * i + 2])};
    // Sigma z = R S^2 R^T z.
    const Vec3f rz = transpose(R) * z;
    const Vec3f cz = R * mul(mul(s, s), rz);
    store3(m.means.data(), i, load3(m.means.data(), i) + (gate * scale) * cz);
  }
}

double mcmc_regularizer(const GaussianModel& m, const McmcOptions& o, float* opacity_grad, float* log_scale_grad) {
  const std::size_t n = m.size();
  if (n == 0) return 0.0;
  double sum_o = 0, sum_s = 0;
  const float go = o.opacity_reg / static_cast<float>(n);
  const float gs = o.scale_reg / static_cast<float>(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const float s = sigmoid(m.opacity_logits[i]);
    sum_o += s;
    if (opacity_grad) opacity_grad[i] += go * s * (1.f - s);
    for (int a = 0; a < 3; ++a) {
      const float e = std::exp(m.log_scales[3 * i + a]);
      sum_s += e;
      if (log_scale_grad) log_scale_grad[3 * i + a] += gs * e;
    }
  }
  return o.opacity_reg * sum_o / static_cast<double>(n) + o.scale_reg * sum_s / static_cast<double>(3 * n);
}

std::size_t relocate_dead(SplatSet& set, const McmcOptions& o, Rng& rng) {
  const std::size_t n = set.size();
  std::vector<std::uint32_t> dead;
  std::vector<double> weights(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const float op = sigmoid(set.model.opacity_logits[i]);
    if (op <= o.min_opacity) dead.push_back(static_cast<std::uint32_t>(i));
    else weights[i] = op;
  }
  if (dead.empty() || dead.size() == n) return 0;
  const std::vector<std::uint32_t> src = sample_proportional(weights, dead.size(), rng);
  if (src.size() != dead.size()) return 0;
  const Relocated r = relocated_params(set.model.opacity_logits, set.model.log_scales, src, o);
  for (int g = 0; g < kNumParamGroups; ++g) {
    std::vector<float>& p = set.param(g);
    const std::size_t w = static_cast<std::size_t>(kParamGroupWidths[g]);
    for (std::size_t k = 0; k < dead.size(); ++k) std::copy_n(p.begin() + src[k] * w, w, p.begin() + dead[k] * w);
  }
  for (std::size_t k = 0; k < dead.size(); ++k) {
    set_opacity_scale(set, dead[k], r, k);
    set_opacity_scale(set, src[k], r, k);
  }
  set.zero_moments(src);
  set.zero_moments(dead);
  return dead.size();
}

std::size_t grow(SplatSet& set, const McmcOptions& o, Rng& rng) {
  const std::size_t n = set.size();
  const std::size_t target = std::min(o.max_splats, static_cast<std::size_t>((1.0 + o.growth) * static_cast<double>(n)));
  if (target <= n) return 0;
  std::vector<double> weights(n);
  for (std::size_t i = 0; i < n; ++i) weights[i] = sigmoid(set.model.opacity_logits[i]);
  const std::vector<std::uint32_t> src = sample_proportional(weights, target - n, rng);
  if (src.empty()) return 0;
  const Relocated r = relocated_params(set.model.opacity_logits, set.model.log_scales, src, o);
  for (std::size_t k = 0; k < src.size(); ++k) set_opacity_scale(set, src[k], r, k);
  set.zero_moments(src);
  set.append_copies(src);  // copies carry the sources' new opacity and scale
  return src.size();
}

McmcReport mcmc_step(SplatSet& set, long step, const McmcOptions& o, Rng& rng) {
  McmcReport rep;
  if (step < o.refine_until && step > o.refine_from && o.refine_every > 0 && step % o.refine_every == 0) {
    rep.refined = true;
    rep.relocated = relocate_dead(set, o, rng);
    rep.added = grow(set, o, rng);
  }
  return rep;
}

// relocate_dead and grow on the two arrays, recording what they do to the rest
McmcEdits mcmc_step_edits(std::vector<float>& logits, std::vector<float>& log_scales, long step, const McmcOptions& o,
                          Rng& rng) {
  McmcEdits e;
  if (!(step < o.refine_until && step > o.refine_from && o.refine_every > 0 && step % o.refine_every == 0)) return e;
  e.report.refined = true;
  const std::size_t n = logits.size();
  std::vector<std::int64_t> set_at(n, -1);  // a row's entry in set_rows
  const auto set_row = [&](std::uint32_t row, const Relocated& r, std::size_t k) {
    logits[row] = r.logit[k];
    for (int a = 0; a < 3; ++a) log_scales[3 * row + a] = r.log_scale[3 * k + a];
    if (set_at[row] < 0) {
      set_at[row] = static_cast<std::int64_t>(e.set_rows.size());
      e.set_rows.push_back(row);
      e.set_logit.push_back(0.f);
      e.set_log_scale.insert(e.set_log_scale.end(), 3, 0.f);
    }
    const auto at = static_cast<std::size_t>(set_at[row]);
    e.set_logit[at] = r.logit[k];
    for (int a = 0; a < 3; ++a) e.set_log_scale[3 * at + a] = r.log_scale[3 * k + a];
  };
  std::vector<std::uint8_t> zeroed(n, 0);
  const auto zero_rows = [&](const std::vector<std::uint32_t>& rows) {
    for (std::uint32_t r : rows)
      if (!zeroed[r]) {
        zeroed[r] = 1;
        e.zero_rows.push_back(r);
      }
  };
  {  // relocate_dead
    std::vector<std::uint32_t> dead;
    std::vector<double> weights(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const float op = sigmoid(logits[i]);
      if (op <= o.min_opacity) dead.push_back(static_cast<std::uint32_t>(i));
      else weights[i] = op;
    }
    if (!dead.empty() && dead.size() != n) {
      const std::vector<std::uint32_t> src = sample_proportional(weights, dead.size(), rng);
      if (src.size() == dead.size()) {
        const Relocated r = relocated_params(logits, log_scales, src, o);
        for (std::size_t k = 0; k < dead.size(); ++k) {
          logits[dead[k]] = logits[src[k]];
          for (int a = 0; a < 3; ++a) log_scales[3 * dead[k] + a] = log_scales[3 * src[k] + a];
        }
        e.copy_to = dead;
        e.copy_from = src;
        for (std::size_t k = 0; k < dead.size(); ++k) {
          set_row(dead[k], r, k);
          set_row(src[k], r, k);
        }
        zero_rows(src);
        zero_rows(dead);
        e.report.relocated = dead.size();
      }
    }
  }
  {  // grow
    const std::size_t target =
        std::min(o.max_splats, static_cast<std::size_t>((1.0 + o.growth) * static_cast<double>(n)));
    if (target > n) {
      std::vector<double> weights(n);
      for (std::size_t i = 0; i < n; ++i) weights[i] = sigmoid(logits[i]);
      const std::vector<std::uint32_t> src = sample_proportional(weights, target - n, rng);
      if (!src.empty()) {
        const Relocated r = relocated_params(logits, log_scales, src, o);
        for (std::size_t k = 0; k < src.size(); ++k) set_row(src[k], r, k);
        zero_rows(src);
        e.append_from = src;
        for (std::uint32_t s : src) {
          logits.push_back(logits[s]);
          for (int a = 0; a < 3; ++a) log_scales.push_back(log_scales[3 * s + a]);
        }
        e.report.added = src.size();
      }
    }
  }
  return e;
}

}  // namespace glint
