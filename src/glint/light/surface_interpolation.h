#pragma once
// A slowly varying per-pixel quantity of a view's surface (ambient occlusion, a light's
// visibility) evaluated at a quarter of the surface pixels and interpolated at the rest
// where that is safe. The pixels of even row and even column are evaluated; each other
// surface pixel takes the mean of its evaluated neighbours (left and right on an even row,
// above and below on an even column, the four diagonals otherwise: its bilinear weights at
// the midpoint) when they are all surface pixels that face within max_normal_deg of its
// normal, lie within max_depth_rel of its depth and agree within max_spread on every
// channel of every output; any other pixel is evaluated. An interpolated value thus lies
// between evaluated ones that differ by at most max_spread.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "glint/core/error.h"
#include "glint/core/image.h"
#include "glint/light/surface_map.h"

namespace glint {

struct SurfaceInterpolation {
  bool enabled = false;
  double max_spread = 0.02;
  double max_normal_deg = 10;
  double max_depth_rel = 0.01;
};

// An image that eval fills. relative: the spread is measured against the largest of the
// neighbours' values of the channel (colours); otherwise it is absolute (values in [0,1]).
struct InterpolatedOutput {
  ImageF* image;
  bool relative;
};

// Which pixels of a view are evaluated and which may be interpolated, from the geometry
// alone (positions, normals, depth): built once, run for as many quantities as needed.
class SurfaceInterpolationPlan {
 public:
  // Without p.enabled every surface pixel is evaluated. The images must outlive the plan.
  SurfaceInterpolationPlan(const ImageF& positions, const ImageF& normals, const ImageF& depth,
                           const SurfaceInterpolation& p, const char* what);

  // eval(i, x, n) writes pixel i of every output, at every surface pixel the plan does not
  // interpolate; the others get the mean of their neighbours' values where those agree
  // within max_spread on every channel of every output, and are evaluated otherwise.
  template <class F>
  void run(const std::vector<InterpolatedOutput>& outputs, F eval) const;

  // The same with eval_batch(points, count) evaluating up to kBatch pixels at once (each
  // point: pixel i, position x, unit normal n), for quantities that look up many maps per
  // pixel and read each map's memory better a map at a time over many pixels.
  struct Point {
    long i;
    Vec3d x, n;
  };
  static constexpr int kBatch = 256;
  // The images the plan was built on (a pixel with a non-zero normal is a surface pixel;
  // the normals are not necessarily of unit length).
  const ImageF& positions() const { return pos_; }
  const ImageF& normals() const { return nrm_; }
  template <class B>
  void run_batched(const std::vector<InterpolatedOutput>& outputs, B eval_batch) const {
    run_batched(outputs, eval_batch, [](long) { return false; });
  }
  // The same, except that the surface pixels where skip(i) holds are neither evaluated
  // nor interpolated (their outputs keep what they hold), and a pixel next to one is not
  // interpolated either: quantities that need no value there (a light's visibility where
  // the surface faces away from it).
  template <class B, class S>
  void run_batched(const std::vector<InterpolatedOutput>& outputs, B eval_batch, S skip) const;

 private:
  // A candidate with its neighbours, made from its entry in candidates_ when it is visited
  // (the neighbours follow from the pixel's row and column parity), so that the plan holds
  // one number a pixel rather than five.
  struct Candidate {
    long i;
    int count;  // 0: its geometry failed the test, evaluated
    long nb[4];
  };
  Candidate candidate(long code) const;
  const ImageF& pos_;
  const ImageF& nrm_;
  bool enabled_;
  double max_spread_;
  int width_;
  std::vector<long> evaluated_;   // first, in parallel
  std::vector<long> candidates_;  // then: interpolated where the values agree; ~i: evaluated
  Vec3d at(const ImageF& img, long i) const {
    const Vec3f v = load3(img.data.data(), i);
    return {v.x, v.y, v.z};
  }
  // Whether candidate c's neighbours agree on every output (it may be interpolated).
  bool agree(const Candidate& c, const std::vector<InterpolatedOutput>& outputs) const;
  static void interpolate(const Candidate& c, const std::vector<InterpolatedOutput>& outputs);
};

inline SurfaceInterpolationPlan::SurfaceInterpolationPlan(const ImageF& pos, const ImageF& nrm, const ImageF& depth,
                                                          const SurfaceInterpolation& p, const char* what)
    : pos_(pos), nrm_(nrm), enabled_(p.enabled), max_spread_(p.max_spread), width_(pos.width) {
  check_surface_images(pos, nrm, what);
  const int W = pos.width, H = pos.height;
  auto is_surface = [&](long i) {
    const Vec3f n = load3(nrm.data.data(), i);
    return n.x * n.x + n.y * n.y + n.z * n.z > 0;
  };
  if (!p.enabled) return;  // run() visits every surface pixel
  if (depth.channels != 1 || depth.width != W || depth.height != H)
    throw Error(std::string(what) + ": depth must be [H,W,1] of the positions' size");
  const double cos_max = std::cos(p.max_normal_deg * std::numbers::pi / 180);
  // Bands of rows on all threads, joined in order: the same lists as one pass down the rows.
  const int bands = std::min(H, 64);
  std::vector<std::vector<long>> band_evaluated(static_cast<std::size_t>(std::max(bands, 0)));
  std::vector<std::vector<long>> band_candidates(band_evaluated.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < bands; ++b) {
    const int y0 = static_cast<int>(static_cast<long>(H) * b / bands);
    const int y1 = static_cast<int>(static_cast<long>(H) * (b + 1) / bands);
    std::vector<long>& ev = band_evaluated[static_cast<std::size_t>(b)];
    std::vector<long>& ca = band_candidates[static_cast<std::size_t>(b)];
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < W; ++x) {
        const long i = static_cast<long>(y) * W + x;
        if (!is_surface(i)) continue;
        const bool ox = x % 2 != 0, oy = y % 2 != 0;
        if (!ox && !oy) {
          ev.push_back(i);
          continue;
        }
        bool ok = true;
        for (int dy = oy ? -1 : 0; dy <= (oy ? 1 : 0); dy += 2)
          for (int dx = ox ? -1 : 0; dx <= (ox ? 1 : 0); dx += 2)
            if (x + dx >= W || y + dy >= H) ok = false;
        const Candidate c = candidate(i);
        const Vec3d ni = at(nrm, i);
        const double zi = depth.data[static_cast<std::size_t>(i)];
        for (int k = 0; ok && k < c.count; ++k) {
          const Vec3d nj = at(nrm, c.nb[k]);
          const double lj = norm(nj);
          ok = lj > 0 && dot(ni, nj) >= cos_max * norm(ni) * lj &&
               std::abs(depth.data[static_cast<std::size_t>(c.nb[k])] - zi) <= p.max_depth_rel * zi;
        }
        ca.push_back(ok ? i : ~i);  // ~i: evaluated after the even pixels, as a candidate that fails
      }
  }
  for (std::size_t b = 0; b < band_evaluated.size(); ++b) {
    evaluated_.insert(evaluated_.end(), band_evaluated[b].begin(), band_evaluated[b].end());
    candidates_.insert(candidates_.end(), band_candidates[b].begin(), band_candidates[b].end());
  }
}

inline SurfaceInterpolationPlan::Candidate SurfaceInterpolationPlan::candidate(long code) const {
  Candidate c{code < 0 ? ~code : code, 0, {0, 0, 0, 0}};
  const int x = static_cast<int>(c.i % width_), y = static_cast<int>(c.i / width_);
  const bool ox = x % 2 != 0, oy = y % 2 != 0;
  for (int dy = oy ? -1 : 0; dy <= (oy ? 1 : 0); dy += 2)
    for (int dx = ox ? -1 : 0; dx <= (ox ? 1 : 0); dx += 2)
      c.nb[c.count++] = static_cast<long>(y + dy) * width_ + (x + dx);
  if (code < 0) c.count = 0;
  return c;
}

inline bool SurfaceInterpolationPlan::agree(const Candidate& c, const std::vector<InterpolatedOutput>& outputs) const {
  bool ok = c.count > 0;
  for (std::size_t o = 0; ok && o < outputs.size(); ++o) {
    const ImageF& img = *outputs[o].image;
    const int C = img.channels;
    for (int ch = 0; ok && ch < C; ++ch) {
      float lo = img.data[static_cast<std::size_t>(c.nb[0]) * C + ch], hi = lo;
      for (int j = 1; j < c.count; ++j) {
        const float v = img.data[static_cast<std::size_t>(c.nb[j]) * C + ch];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const double scale = outputs[o].relative ? std::max(std::abs(lo), std::abs(hi)) : 1.0;
      ok = hi - lo <= max_spread_ * scale;
    }
  }
  return ok;
}

inline void SurfaceInterpolationPlan::interpolate(const Candidate& c, const std::vector<InterpolatedOutput>& outputs) {
  for (const InterpolatedOutput& out : outputs) {
    ImageF& img = *out.image;
    const int C = img.channels;
    for (int ch = 0; ch < C; ++ch) {
      float sum = 0;
      for (int j = 0; j < c.count; ++j) sum += img.data[static_cast<std::size_t>(c.nb[j]) * C + ch];
      img.data[static_cast<std::size_t>(c.i) * C + ch] = sum / static_cast<float>(c.count);
    }
  }
}

template <class F>
void SurfaceInterpolationPlan::run(const std::vector<InterpolatedOutput>& outputs, F eval) const {
  if (!enabled_) return for_surface_pixels(pos_, nrm_, "surface pixels", eval);
  auto eval_at = [&](long i) { eval(i, at(pos_, i), normalize(at(nrm_, i))); };
  const long ne = static_cast<long>(evaluated_.size()), nc = static_cast<long>(candidates_.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (long k = 0; k < ne; ++k) eval_at(evaluated_[static_cast<std::size_t>(k)]);
#pragma omp parallel for schedule(dynamic, 256)
  for (long k = 0; k < nc; ++k) {
    const Candidate c = candidate(candidates_[static_cast<std::size_t>(k)]);
    if (agree(c, outputs)) interpolate(c, outputs);
    else eval_at(c.i);
  }
}

// The pixels of each batch are those run() would evaluate, so both give the same values.
template <class B, class S>
void SurfaceInterpolationPlan::run_batched(const std::vector<InterpolatedOutput>& outputs, B eval_batch, S skip) const {
  auto point = [&](long i) { return Point{i, at(pos_, i), normalize(at(nrm_, i))}; };
  if (!enabled_) {  // every surface pixel (for_surface_pixels' test)
    const long n = static_cast<long>(pos_.width) * pos_.height;
#pragma omp parallel for schedule(dynamic, 1)
    for (long b = 0; b < n; b += kBatch) {
      Point pts[kBatch];
      int count = 0;
      for (long i = b; i < std::min(n, b + kBatch); ++i) {
        const Vec3f nf = load3(nrm_.data.data(), i);
        if (nf.x * nf.x + nf.y * nf.y + nf.z * nf.z > 0 && !skip(i)) pts[count++] = point(i);
      }
      if (count > 0) eval_batch(static_cast<const Point*>(pts), count);
    }
    return;
  }
  const long ne = static_cast<long>(evaluated_.size()), nc = static_cast<long>(candidates_.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (long b = 0; b < ne; b += kBatch) {
    Point pts[kBatch];
    int count = 0;
    for (long k = b; k < std::min(ne, b + kBatch); ++k)
      if (const long i = evaluated_[static_cast<std::size_t>(k)]; !skip(i)) pts[count++] = point(i);
    if (count > 0) eval_batch(static_cast<const Point*>(pts), count);
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (long b = 0; b < nc; b += kBatch) {
    Point pts[kBatch];
    int count = 0;
    for (long k = b; k < std::min(nc, b + kBatch); ++k) {
      const Candidate c = candidate(candidates_[static_cast<std::size_t>(k)]);
      if (skip(c.i)) continue;
      bool next_to_skipped = false;
      for (int j = 0; j < c.count; ++j) next_to_skipped = next_to_skipped || skip(c.nb[j]);
      if (!next_to_skipped && agree(c, outputs)) interpolate(c, outputs);
      else pts[count++] = point(c.i);
    }
    if (count > 0) eval_batch(static_cast<const Point*>(pts), count);
  }

}

}  // namespace glint
