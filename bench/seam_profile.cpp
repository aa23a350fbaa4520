// Seams of a merged partition, pixel by pixel. Each held-out pixel is placed on the ground
// (the reference model's depth) and binned by its distance from the nearest border between
// cells (partition::border_distance). In each view, a model's gain over the reference (the
// whole-scene run) in a bin is compared with its gain in the same view 0.5-8 units from a
// border; the bin's figure is the mean of that difference over the views, with its standard
// error. A seam shows as a negative figure in the bins next to a border. Comparing within
// each view takes out what differs from view to view, which is far more than a seam: a
// comparison of views that look across a border with views that do not needs hundreds of
// views to resolve half a dB. The same figures about each core's middle lines, where no
// border is, show what the method gives where there is no seam.
//   bench_seam_profile [--cell K] PLAN DATASET REFERENCE.ply MODEL.ply [MODEL.ply ...]
// DATASET: the plan's dataset or a copy of it with other held-out views
// (bench/town_test_views.sh). --cell K scores only the pixels whose surface cell K owns:
// with cell K's own model and the merged model, what merging adds to a seam.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "glint/backend/backend_registry.h"
#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/io/image_ops.h"
#include "glint/io/model_file.h"
#include "glint/light/geometry.h"
#include "glint/partition/merge.h"
#include "glint/partition/plan_file.h"
#include "glint/train/metrics.h"

using namespace glint;

namespace {

// bins of distance in the dataset's units (metres for town); beyond the last, no bin
constexpr double kEdges[] = {0, 0.25, 0.5, 1, 2, 4, 8};
constexpr int kBins = sizeof(kEdges) / sizeof(kEdges[0]) - 1;
constexpr double kNear = 0.5;    // the seam figure: gain within kNear ...
constexpr int kFarFirst = 2;     // ... against the gain in bins kFarFirst.. (0.5-8)
constexpr double kMinPixels = 500;  // a view counts for a bin with this many pixels in it and in the far bins

int bin_of(double d) {
  for (int b = 0; b < kBins; ++b)
    if (d >= kEdges[b] && d < kEdges[b + 1]) return b;
  return -1;
}

// Distance on the ground from the nearest middle line of the owner's core: the control.
double middle_distance(const partition::Plan& plan, Vec3d world) {
  const partition::GroundRect& c = plan.cells[plan.owner(world)].core;
  const partition::GroundRect& b = plan.bounds;
  const Vec2d g = plan.ground(world);
  const double u = std::clamp(g.x, b.u0, b.u1), v = std::clamp(g.y, b.v0, b.v1);
  const double cu = 0.5 * (std::max(c.u0, b.u0) + std::min(c.u1, b.u1));
  const double cv = 0.5 * (std::max(c.v0, b.v0) + std::min(c.v1, b.v1));
  return std::min(std::abs(u - cu), std::abs(v - cv));
}

// One view's sums in each bin: pixels, and each model's squared error (the reference first).
struct BinSums {
  double pixels = 0;
  std::vector<double> squared;
};
using ViewBins = std::vector<BinSums>;

// The per-view figure of model m in bin `bin` (gain there minus gain in the far bins), or
// NAN when the view has too few pixels for it.
double view_figure(const ViewBins& v, std::size_t m, int bin) {
  const auto gain = [&](int b0, int b1) {
    double n = 0, ref = 0, mod = 0;
    for (int b = b0; b < b1; ++b) {
      n += v[static_cast<std::size_t>(b)].pixels;
      ref += v[static_cast<std::size_t>(b)].squared[0];
      mod += v[static_cast<std::size_t>(b)].squared[m];
    }
    return n >= kMinPixels ? 10 * std::log10(ref / mod) : NAN;
  };
  const double near = bin < 0 ? gain(0, kFarFirst) : gain(bin, bin + 1);
  return near - gain(kFarFirst, kBins);
}

struct Mean {
  double mean = NAN, error = NAN;
  std::size_t views = 0;
};
Mean mean_over_views(const std::vector<ViewBins>& views, std::size_t m, int bin) {
  std::vector<double> xs;
  for (const ViewBins& v : views) {
    const double x = view_figure(v, m, bin);
    if (std::isfinite(x)) xs.push_back(x);
  }
  Mean r;
  r.views = xs.size();
  if (xs.size() < 2) return r;
  double s = 0, ss = 0;
  for (double x : xs) s += x;
  r.mean = s / static_cast<double>(xs.size());
  for (double x : xs) ss += (x - r.mean) * (x - r.mean);
  r.error = std::sqrt(ss / static_cast<double>(xs.size() - 1) / static_cast<double>(xs.size()));
  return r;
}

int run(int argc, char** argv) {
  long only_cell = -1;
  if (argc > 2 && std::string(argv[1]) == "--cell") {
    char* end = nullptr;
    only_cell = std::strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || only_cell < 0) throw Error("--cell", std::string("not a cell number: ") + argv[2]);
    argv += 2;
    argc -= 2;
  }
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench_seam_profile [--cell K] PLAN DATASET REFERENCE.ply MODEL.ply [MODEL.ply ...]\n");
    return 2;
  }
  const partition::Plan plan = partition::load_plan(argv[1]);
  if (!plan.dataset_args.empty())
    throw Error(argv[1], "the plan was made with dataset flags; this benchmark reads datasets without any");
  if (plan.cells.size() < 2) throw Error(argv[1], "the plan has one cell: there is no border to measure");
  if (only_cell >= static_cast<long>(plan.cells.size()))
    throw Error(argv[1], "--cell " + std::to_string(only_cell) + ": the plan has " + std::to_string(plan.cells.size()) +
                             " cells");
  const Dataset data = load_dataset(argv[2]);
  if (data.test.empty()) throw Error(argv[2], "no held-out views to score");
  std::vector<GaussianModel> models;  // the reference first
  for (int k = 3; k < argc; ++k) models.push_back(load_model(argv[k]));
  std::unique_ptr<Backend> backend = make_backend("cpu").backend;
  ImageCache images(data, data.test, std::size_t{1} << 30);
  const bool tty = isatty(fileno(stderr)) != 0;

  std::vector<ViewBins> border_views, middle_views;
  std::vector<double> border_pixels(kBins, 0);
  RenderOutput out;
  for (std::size_t i = 0; i < data.test.size(); ++i) {
    const Camera& cam = data.test[i].camera;
    const ImageF target = to_float(*images.get(i));
    const std::size_t n = static_cast<std::size_t>(cam.width) * static_cast<std::size_t>(cam.height);
    std::vector<int> at_border(n, -1), at_middle(n, -1);
    ViewBins& vb = border_views.emplace_back(kBins, BinSums{0, std::vector<double>(models.size(), 0.0)});
    ViewBins& vm = middle_views.emplace_back(kBins, BinSums{0, std::vector<double>(models.size(), 0.0)});
    for (std::size_t m = 0; m < models.size(); ++m) {
      RenderSettings rs;
      rs.for_backward = false;
      rs.want_alpha = false;
      rs.want_depth = m == 0;
      rs.antialiased = models[m].antialiased;
      for (int c = 0; c < 3; ++c) rs.background[c] = data.background[static_cast<std::size_t>(c)];
      backend->forward_into(models[m], cam, rs, out);
      clamp01(out.rgb);
      if (m == 0) {
        const Mat3d to_world = transpose(cam.R);
        for (int y = 0; y < cam.height; ++y)
          for (int x = 0; x < cam.width; ++x) {
            const std::size_t p = static_cast<std::size_t>(y) * static_cast<std::size_t>(cam.width) + static_cast<std::size_t>(x);
            const float z = out.depth.data[p];
            if (!valid_depth(z)) continue;  // nothing there: no surface to place
            const Vec3d world = to_world * (backproject(cam, x, y, z) - cam.t);
            if (only_cell >= 0 && plan.owner(world) != static_cast<std::size_t>(only_cell)) continue;
            at_border[p] = bin_of(partition::border_distance(plan, world));
            at_middle[p] = bin_of(middle_distance(plan, world));
            if (at_border[p] >= 0) vb[static_cast<std::size_t>(at_border[p])].pixels += 1;
            if (at_middle[p] >= 0) vm[static_cast<std::size_t>(at_middle[p])].pixels += 1;
          }
      }
      for (std::size_t p = 0; p < n; ++p) {
        if (at_border[p] < 0 && at_middle[p] < 0) continue;
        double e2 = 0;
        for (std::size_t c = 0; c < 3; ++c) {
          const double e = out.rgb.data[3 * p + c] - target.data[3 * p + c];
          e2 += e * e;
        }
        if (at_border[p] >= 0) vb[static_cast<std::size_t>(at_border[p])].squared[m] += e2;
        if (at_middle[p] >= 0) vm[static_cast<std::size_t>(at_middle[p])].squared[m] += e2;
      }
    }
    for (int b = 0; b < kBins; ++b) border_pixels[static_cast<std::size_t>(b)] += vb[static_cast<std::size_t>(b)].pixels;
    if (tty) std::fprintf(stderr, "\rseam profile: %zu/%zu views", i + 1, data.test.size());
  }
  if (tty) std::fprintf(stderr, "\n");

  if (only_cell >= 0) std::printf("the pixels of cell %ld only\n", only_cell);
  std::printf("%zu held-out views; per bin of ground distance from the nearest border between cells: each\n"
              "model's gain over the reference there minus its gain 0.5-8 away in the same view, dB, mean\n"
              "over the views +- its standard error (a seam: negative next to a border)\n",
              data.test.size());
  std::printf("%-9s %9s", "distance", "pixels");
  for (std::size_t m = 1; m < models.size(); ++m) std::printf("  %13s %zu", "model", m);
  std::printf("\n");
  for (int b = 0; b < kBins; ++b) {
    char range[32];
    std::snprintf(range, sizeof(range), "%g-%g", kEdges[b], kEdges[b + 1]);
    std::printf("%-9s %9.0f", range, border_pixels[static_cast<std::size_t>(b)]);
    for (std::size_t m = 1; m < models.size(); ++m) {
      const Mean r = mean_over_views(border_views, m, b);
      std::printf("  %+6.2f +- %4.2f", r.mean, r.error);
    }
    std::printf("\n");
  }
  for (std::size_t m = 1; m < models.size(); ++m) {
    const Mean seam = mean_over_views(border_views, m, -1), control = mean_over_views(middle_views, m, -1);
    if (seam.views < 2) {
      std::printf("model %zu (%s): fewer than two views show %g pixels both within %g of a border and 0.5-8 from it\n", m,
                  argv[3 + m], kMinPixels, kNear);
      continue;
    }
    std::printf("model %zu (%s): seam %+.2f +- %.2f dB over %zu views (within %g of a border against 0.5-8 from it);"
                " about the cores' middle lines %+.2f +- %.2f dB\n",
                m, argv[3 + m], seam.mean, seam.error, seam.views, kNear, control.mean, control.error);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_seam_profile: %s\n", e.what());
    return 2;
  }
}
