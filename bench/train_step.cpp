// Training-step benchmark: runs glint's 3DGS training loop (ADC, the `glint train`
// defaults) on the shared `shapes` scene and prints ms per step, split by phase.
//   bench_train_step [--steps N] [--warmup N] [--threads N] [--dataset DIR] [--only ROW] [--windows]
//                    [--backend cpu|cuda|vulkan|auto | --compare cpu,cuda]
// --only runs one row: colmap, 200x200, 320x240 or sh3 (to profile one configuration), or
// dataset: the --dataset folder as `glint train` loads it by default (every 8th view held
// out when it has no test split, white behind Blender sets), e.g. lego_800 for the GPU.
// --backend (default cpu, so figures stay comparable with earlier runs) picks where each
// step runs; --compare A,B runs every row on both, one after the other, and prints B's
// ms/step over A's. Times are wall clock: the steps are synchronous on every backend.
// --windows times steps warmup+1 .. warmup+steps against the next `steps` steps, in turns
// within one process (run_windows says why).
// Two configurations:
//   shapes_colmap  200x200, the same views in COLMAP form with its 836 triangulated points
//   200x200  the shapes scene as stored (50 views, 20k initial points from points3d.ply)
//   320x240  the same views resampled to 320x240 (fx, fy, cx, cy scaled accordingly), written
//            once to a temporary Blender-format folder
// Steps run from step 1 with the default schedule (densification starts at step 500, so the
// splat count stays at the initial 20k during a short run; the table prints it), so at SH
// degree 0; the row "shapes SH3" runs the 320x240 scene at SH degree 3 (from step 3), which
// is what every step costs from step 3000 of a run on.
// "start ms": building the trainer (initial splats from the points, and the blurs of every
// view's SSIM target), paid once before step 1 and not in ms/step.
#include <omp.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/backend_registry.h"
#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/image_cache.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/train/trainer.h"

using namespace glint;
namespace fs = std::filesystem;

namespace {

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
double wall_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// The shapes train views resampled to w x h, as a Blender-format folder under /tmp.
std::string make_resized_copy(const std::string& src, int w, int h) {
  const fs::path dst = fs::temp_directory_path() / ("glint_bench_shapes_" + std::to_string(w) + "x" + std::to_string(h));
  const fs::path done = dst / ".complete";
  if (fs::exists(done)) return dst.string();
  fs::create_directories(dst / "train");
  nlohmann::json j;
  {
    std::ifstream in(fs::path(src) / "transforms_train.json");
    in >> j;
  }
  const double sx = double(w) / j.value("w", 200.0), sy = double(h) / j.value("h", 200.0);
  j["fl_x"] = j["fl_x"].get<double>() * sx;
  j["fl_y"] = j["fl_y"].get<double>() * sy;
  j["cx"] = j["cx"].get<double>() * sx;
  j["cy"] = j["cy"].get<double>() * sy;
  j["w"] = w;
  j["h"] = h;
  for (auto& f : j["frames"]) {
    std::string rel = f["file_path"].get<std::string>();
    fs::path in = fs::path(src) / (rel + ".png");
    Image8 img = resize_area(read_image(in.string()), w, h);
    std::string png = encode_png(img);
    std::ofstream out(dst / (rel + ".png"), std::ios::binary);
    out.write(png.data(), std::streamsize(png.size()));
  }
  std::ofstream(dst / "transforms_train.json") << j.dump(1);
  fs::copy_file(fs::path(src) / "points3d.ply", dst / "points3d.ply", fs::copy_options::overwrite_existing);
  std::ofstream(done) << "ok\n";
  return dst.string();
}

struct Sums {
  double fwd = 0, loss = 0, bwd = 0, stats = 0, opt = 0, dens = 0, total = 0, cpu = 0;
};

// A row's dataset with its images decoded, and the training options of its runs.
// sh_degree_every: the SH schedule (0: the default, degree 0 for these first steps; 1:
// degree 3 from step 3, the cost of the later part of a run).
struct RowData {
  Dataset data;
  ImageCache cache;  // refers to data
  TrainOptions opt;
  RowData(const std::string& dir, long steps, long sh_degree_every)
      : data(load_dataset(dir)), cache(data, data.train, std::size_t(1) << 30) {
    cache.preload_if_fits();
    opt.steps = steps;
    if (sh_degree_every > 0) opt.sh_degree_every = sh_degree_every;
  }
};

// The backend by name; an unavailable one throws glint::Error naming why.
std::unique_ptr<Backend> backend_named(const std::string& name, int threads) {
  BackendChoice c = make_backend(name, threads);
  if (!c.fallback_note.empty()) std::fprintf(stderr, "bench_train_step: %s\n", c.fallback_note.c_str());
  return std::move(c.backend);
}

// One row; returns its ms/step (wall clock).
double run(const std::string& label, const std::string& dir, int steps, int warmup, int threads,
           const std::string& backend_name, long sh_degree_every = 0) {
  RowData row(dir, warmup + steps, sh_degree_every);
  const Dataset& data = row.data;
  auto backend = backend_named(backend_name, threads);
  const double s0 = wall_ms();
  Trainer trainer(data, row.opt, *backend, row.cache);
  const double start = wall_ms() - s0;
  Sums s;
  StepResult last;
  for (int i = 0; i < warmup + steps; ++i) {
    const double c0 = cpu_ms(), t0 = wall_ms();
    StepResult r = trainer.step();
    const double t1 = wall_ms(), c1 = cpu_ms();
    if (i < warmup) continue;
    s.fwd += r.ms_forward;
    s.loss += r.ms_loss;
    s.bwd += r.ms_backward;
    s.stats += r.ms_stats;
    s.opt += r.ms_optimizer;
    s.dens += r.ms_densify;
    s.total += t1 - t0;
    s.cpu += c1 - c0;
    last = r;
  }
  const double k = 1.0 / steps;
  const View& v = data.train.front();
  // work of one render of the current model: (tile, splat) instances and blend steps
  RenderSettings rs;
  rs.want_count = true;
  rs.sh_degree = trainer.active_sh_degree();
  RenderOutput co = backend->forward(trainer.model(), v.camera, rs);
  double blend = 0;
  for (float c : co.count.data) blend += c;
  std::printf("%-14s %-5s %5dx%-4d %7zu %7.0f %7.0f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.1f\n", label.c_str(),
              backend->name(), v.camera.width, v.camera.height, last.splats, co.num_instances / 1e3, blend / 1e3, s.total * k,
              s.fwd * k, s.loss * k, s.bwd * k, s.stats * k, s.opt * k, s.dens * k, s.cpu * k, start);
  if (const long long peak = backend->peak_device_memory_bytes(); peak >= 0)
    std::printf("%-14s %-5s peak device memory %.1f MiB (%s)\n", label.c_str(), backend->name(),
                double(peak) / (1024.0 * 1024.0), backend->device().c_str());
  std::fflush(stdout);
  return s.total * k;
}

// --windows: two trainers of the same row, one stepping through warmup+1 .. warmup+steps
// ("early") and one `steps` further on ("late"), stepped in turns (A B B A ...) so that both
// windows run on the same machine from millisecond to millisecond. On a shared machine whose
// speed drifts between runs (docs/BENCHMARKS.md, "Benchmarking on a noisy machine"), two
// separate runs cannot compare the windows; in turns their ratio holds.
void run_windows(const std::string& label, const std::string& dir, int steps, int warmup, int threads,
                 const std::string& backend_name, long sh_degree_every = 0) {
  RowData row(dir, warmup + 2 * steps, sh_degree_every);
  const Dataset& data = row.data;
  auto backend_early = backend_named(backend_name, threads), backend_late = backend_named(backend_name, threads);
  Trainer early(data, row.opt, *backend_early, row.cache), late(data, row.opt, *backend_late, row.cache);
  for (int i = 0; i < warmup; ++i) early.step();
  for (int i = 0; i < warmup + steps; ++i) late.step();
  Trainer* trainer[2] = {&early, &late};
  Sums sum[2];
  std::vector<double> ms[2];
  for (int i = 0; i < 2 * steps; ++i) {
    const int w = (i % 4 == 1 || i % 4 == 2) ? 1 : 0;
    const double t0 = wall_ms();
    const StepResult r = trainer[w]->step();
    ms[w].push_back(wall_ms() - t0);
    sum[w].total += ms[w].back();
    sum[w].fwd += r.ms_forward;
    sum[w].loss += r.ms_loss;
    sum[w].bwd += r.ms_backward;
  }
  // late / early over each A B B A block: a step that the machine stalled counts in one
  // block only, where in the sums it moves the ratio
  std::vector<double> ratio;
  for (std::size_t j = 0; j + 1 < ms[0].size() && j + 1 < ms[1].size(); j += 2)
    ratio.push_back((ms[1][j] + ms[1][j + 1]) / (ms[0][j] + ms[0][j + 1]));
  std::sort(ratio.begin(), ratio.end());
  const View& v = data.train.front();
  const double k = 1.0 / steps;
  for (int w = 0; w < 2; ++w)
    std::printf("%-14s %5dx%-4d steps %4d-%-4d %9.2f %9.2f %9.2f %9.2f\n", label.c_str(), v.camera.width, v.camera.height,
                warmup + 1 + w * steps, warmup + (w + 1) * steps, sum[w].total * k, sum[w].fwd * k, sum[w].loss * k,
                sum[w].bwd * k);
  std::printf("%-14s late / early: %.3f (sums), %.3f (median of %zu A B B A blocks)\n", label.c_str(),
              sum[1].total / sum[0].total, ratio.empty() ? 0.0 : ratio[ratio.size() / 2], ratio.size());
  std::fflush(stdout);
}

int run_rows(const std::string& dataset, const std::string& only, const std::function<bool(const char*)>& want,
             const std::vector<std::string>& backends, int steps, int warmup, int threads, bool windows) {
  std::string names;
  for (const std::string& b : backends) names += (names.empty() ? "" : ",") + b;
  std::printf("glint training step benchmark  backend=%s  threads=%d  steps=%d (after %d warm-up)  simd=%s  (wall clock)\n",
              names.c_str(), threads > 0 ? threads : omp_get_max_threads(), steps, warmup,
              cpu_simd_name(active_cpu_simd()));
  if (windows)
    std::printf("%-14s %10s %15s %9s %9s %9s %9s\n", "scene", "size", "window", "ms/step", "forward", "loss", "backward");
  else
    std::printf("%-14s %-5s %10s %7s %7s %7s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "scene", "where", "size", "splats", "inst/K",
                "steps/K", "ms/step", "forward", "loss", "backward", "stats", "adam", "densify", "cpu ms", "start ms");
  const auto row = [&](const std::string& label, const std::string& dir, long sh_every) {
    std::vector<double> ms;
    for (const std::string& b : backends) {
      if (windows)
        run_windows(label, dir, steps, warmup, threads, b, sh_every);
      else
        ms.push_back(run(label, dir, steps, warmup, threads, b, sh_every));
    }
    if (ms.size() == 2)
      std::printf("%-14s ms/step %s / %s: %.4f (%.2f ms / %.2f ms)\n", label.c_str(), backends[1].c_str(),
                  backends[0].c_str(), ms[1] / ms[0], ms[1], ms[0]);
    std::fflush(stdout);
  };
  if (only == "dataset") {
    fs::path name = fs::path(dataset).lexically_normal();
    if (name.filename().empty()) name = name.parent_path();  // "DIR/"
    row(name.filename().string(), dataset, 0);
    return 0;
  }
  const fs::path colmap = fs::path(dataset).parent_path() / "shapes_colmap";
  if (want("colmap") && fs::exists(colmap)) row("shapes_colmap", colmap.string(), 0);
  if (want("200x200")) row("shapes", dataset, 0);
  if (!want("320x240") && !want("sh3")) return 0;
  const std::string resized = make_resized_copy(dataset, 320, 240);
  if (want("320x240")) row("shapes", resized, 0);
  if (want("sh3")) row("shapes SH3", resized, 1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 200, warmup = 20, threads = 0;
  std::string dataset = std::string(GLINT_SHARED_DATASETS) + "/shapes";
  std::string only, backend_name = "cpu", compare;
  bool windows = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) steps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--warmup" && i + 1 < argc) warmup = std::max(0, std::atoi(argv[++i]));
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--dataset" && i + 1 < argc) dataset = argv[++i];
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--windows") windows = true;
    else if (a == "--backend" && i + 1 < argc) backend_name = argv[++i];
    else if (a == "--compare" && i + 1 < argc) compare = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_train_step [--steps N] [--warmup N] [--threads N] [--dataset DIR] [--only ROW] [--windows] "
                           "[--backend cpu|cuda|vulkan|auto | --compare A,B]\n");
      return 2;
    }
  }
  if (!only.empty() && only != "colmap" && only != "200x200" && only != "320x240" && only != "sh3" && only != "dataset") {
    std::fprintf(stderr, "bench_train_step: --only takes colmap, 200x200, 320x240, sh3 or dataset, not '%s'\n", only.c_str());
    return 2;
  }
  // The backends each row runs on, in order.
  std::vector<std::string> backends{backend_name};
  if (!compare.empty()) {
    const std::size_t comma = compare.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == compare.size() || windows) {
      std::fprintf(stderr, "bench_train_step: --compare takes two backends as A,B (e.g. cpu,cuda), without --windows\n");
      return 2;
    }
    backends = {compare.substr(0, comma), compare.substr(comma + 1)};
  }
  for (const std::string& b : backends) {  // before any work: one line, exit 2
    std::string why;
    if (!backend_available(b, &why)) {
      std::fprintf(stderr, "bench_train_step: --backend %s: %s\n", b.c_str(), why.c_str());
      return 2;
    }
  }
  const auto want = [&](const char* row) { return only.empty() || only == row; };
  if (!fs::is_directory(dataset)) {
    std::printf("dataset %s not found; nothing to measure\n", dataset.c_str());
    return 0;
  }
  try {
    return run_rows(dataset, only, want, backends, steps, warmup, threads, windows);
  } catch (const Error& e) {  // a bad dataset, or a device error on the way
    std::fprintf(stderr, "bench_train_step: %s\n", e.what());
    return 2;
  }
}

