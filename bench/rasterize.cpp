// Rasterizer benchmark: forward and forward+backward on a lego-like synthetic scene
// (splats on the faces of a few boxes inside radius ~1.3, seen from radius 4), printing a
// stable table: ms per frame (median of repeats), blend steps per second, peak RSS.
//   bench_rasterize [--backend cpu|cuda|vulkan|auto] [--threads N] [--repeats R] [--quick]
//                   [--size 400|800] [--splats N (default 100000 and 300000)]
//   bench_rasterize --model scene.ply --dataset DIR [--view I] [--size 400|800]
//     (a trained model from test camera I of DIR, scaled to 400 and 800 pixels wide)
// --backend defaults to cpu, so that figures stay comparable with earlier runs (vulkan takes
// GLINT_VULKAN_DEVICE, else the best device: on a machine without a GPU a CPU driver). The times
// are wall-clock medians of Backend calls, which are synchronous on every backend (the
// CUDA backend downloads its outputs and gradients before returning), so on a GPU they are
// end-to-end figures including the transfers. "fwd dev" and "f+b dev" are the device's own
// clock over the stages alone (Backend::last_stage_times: CUDA events, Vulkan timestamp
// queries; "-" on the CPU).
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/backend_registry.h"
#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/model_file.h"
#include "glint/core/math.h"

using namespace glint;

namespace {

struct Box {
  Vec3d c, h;  // centre, half sizes
};

GaussianModel lego_like(int n, unsigned seed) {
  const Box boxes[] = {{{0, 0, -0.55}, {0.9, 0.6, 0.15}},  {{0, 0.1, 0.0}, {0.45, 0.35, 0.4}},
                       {{-0.6, -0.3, 0.3}, {0.2, 0.2, 0.6}}, {{0.55, 0.3, 0.45}, {0.25, 0.3, 0.2}},
                       {{0.1, -0.5, 0.6}, {0.3, 0.12, 0.25}}};
  std::vector<double> area;
  for (const Box& b : boxes) area.push_back(8 * (b.h.x * b.h.y + b.h.y * b.h.z + b.h.x * b.h.z));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  std::discrete_distribution<int> pick(area.begin(), area.end());
  GaussianModel m;
  m.sh_degree = 3;
  m.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const Box& b = boxes[pick(rng)];
    // a face, weighted by area
    double ax = b.h.y * b.h.z, ay = b.h.x * b.h.z, az = b.h.x * b.h.y, r = U(rng) * (ax + ay + az);
    int axis = r < ax ? 0 : (r < ax + ay ? 1 : 2);
    double sgn = U(rng) < 0.5 ? -1 : 1;
    double p[3] = {(2 * U(rng) - 1) * b.h.x, (2 * U(rng) - 1) * b.h.y, (2 * U(rng) - 1) * b.h.z};
    const double hh[3] = {b.h.x, b.h.y, b.h.z};
    p[axis] = sgn * hh[axis];
    Vec3d nrm{0, 0, 0};
    (axis == 0 ? nrm.x : axis == 1 ? nrm.y : nrm.z) = sgn;
    Vec3d t1 = normalize(cross(nrm, std::fabs(nrm.z) < 0.9 ? Vec3d{0, 0, 1} : Vec3d{1, 0, 0}));
    Vec3d t2 = cross(nrm, t1);
    double ang = U(rng) * 6.283185307179586;
    Vec3d u = std::cos(ang) * t1 + std::sin(ang) * t2, v = cross(nrm, u);
    Mat3d R{{u.x, v.x, nrm.x, u.y, v.y, nrm.y, u.z, v.z, nrm.z}};
    Quatd q = rotmat_to_quat(R);
    m.means[3 * i] = float(b.c.x + p[0]);
    m.means[3 * i + 1] = float(b.c.y + p[1]);
    m.means[3 * i + 2] = float(b.c.z + p[2]);
    m.log_scales[3 * i] = float(std::log(0.005) + U(rng) * std::log(4.0));
    m.log_scales[3 * i + 1] = float(std::log(0.005) + U(rng) * std::log(4.0));
    m.log_scales[3 * i + 2] = float(std::log(0.001));
    m.quats[4 * i] = float(q.w);
    m.quats[4 * i + 1] = float(q.x);
    m.quats[4 * i + 2] = float(q.y);
    m.quats[4 * i + 3] = float(q.z);
    m.opacity_logits[i] = float(-2.0 + 7.0 * U(rng));
    for (int c = 0; c < 3; ++c) m.sh_dc[3 * i + c] = float(-1.0 + 2.0 * U(rng));
    for (int k = 0; k < 45; ++k) m.sh_rest[45 * std::size_t(i) + k] = float(0.1 * (2 * U(rng) - 1));
  }
  return m;
}

Camera orbit_camera(int size) {
  Camera c;
  c.name = "bench";
  c.width = c.height = size;
  c.fx = c.fy = 1111.0 * size / 800.0;
  c.cx = c.cy = size / 2.0;
  const double az = 0.7, el = 0.5, r = 4.0;
  Vec3d eye{r * std::cos(el) * std::cos(az), r * std::cos(el) * std::sin(az), r * std::sin(el)};
  Vec3d f = normalize(Vec3d{0, 0, 0} - eye), rt = normalize(cross(f, Vec3d{0, 0, 1})), d = cross(f, rt);
  c.R = {{rt.x, rt.y, rt.z, d.x, d.y, d.z, f.x, f.y, f.z}};
  c.t = -(c.R * eye);
  return c;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time of the whole process (all threads): under a loaded machine this moves far less
// than wall time, so it is the figure to compare variants with.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One row of the table: forward and forward+backward of `m` seen by `cam`.
void measure(Backend& be, const GaussianModel& m, const Camera& cam, int repeats) {
  const int W = cam.width, H = cam.height;
  RenderSettings s;
  s.background[0] = s.background[1] = s.background[2] = 1.f;
  RenderSettings sc = s;
  sc.want_count = true;
  RenderOutput co = be.forward(m, cam, sc);
  double steps = 0;
  for (float v : co.count.data) steps += v;
  const long long visible = co.num_visible;
  const double instances = double(co.num_instances);
  co = RenderOutput();  // its forward state back to the pool
  std::vector<float> d_rgb(std::size_t(W) * std::size_t(H) * 3);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> U(-1, 1);
  for (auto& x : d_rgb) x = U(rng) * 1e-3f;
  RenderGradIn gi;
  gi.d_rgb = d_rgb.data();
  ModelGrad g;
  std::vector<double> tf, tfb, cf, cfb, df, dfb;  // wall, process CPU, device clock
  // frame after frame into the same outputs, as training and `glint render` do; the
  // forward alone as a render (no backward bookkeeping), the pair as in training
  RenderOutput o, o2;
  RenderSettings render_only = s;
  render_only.for_backward = false;
  for (int r = 0; r <= repeats; ++r) {  // first round warms up
    double c0 = cpu_ms(), t0 = now_ms();
    be.forward_into(m, cam, render_only, o);
    double c1 = cpu_ms(), t1 = now_ms();
    const double dev_f = be.last_stage_times().forward_ms;
    o.saved.reset();  // a render keeps no state: the next forward takes it from the pool
    be.forward_into(m, cam, s, o2);
    be.backward(m, cam, s, o2, gi, g);
    double c2 = cpu_ms(), t2 = now_ms();
    const Backend::StageTimes dev_fb = be.last_stage_times();
    if (r > 0) {
      if (dev_f >= 0) df.push_back(dev_f);
      if (dev_fb.forward_ms >= 0 && dev_fb.backward_ms >= 0) dfb.push_back(dev_fb.forward_ms + dev_fb.backward_ms);
      tf.push_back(t1 - t0);
      tfb.push_back(t2 - t1);
      cf.push_back(c1 - c0);
      cfb.push_back(c2 - c1);
    }
  }
  double f = median(tf), fb = median(tfb);
  // the device's own time where the backend has a clock for it, else "-"
  const auto dev = [](const std::vector<double>& v) {
    char b[32] = "-";
    if (!v.empty()) std::snprintf(b, sizeof b, "%.2f", median(v));
    return std::string(b);
  };
  std::printf("%-8s %-8zu %9lld %9.2f %12.2f %10.2f %10.2f %14.1f %14.1f %9.1f %9.1f %9s %9s\n",
              (std::to_string(W) + "x" + std::to_string(H)).c_str(), m.size(), visible, instances / 1e6, steps / 1e6,
              f, fb, steps / 1e3 / f, steps / 1e3 / fb, median(cf), median(cfb), dev(df).c_str(), dev(dfb).c_str());
  std::fflush(stdout);
}

// The camera scaled to `size` pixels wide (same field of view).
Camera resized(Camera c, int size) {
  const double k = double(size) / c.width;
  c.fx *= k;
  c.fy *= k;
  c.cx *= k;
  c.cy *= k;
  c.width = size;
  c.height = int(std::lround(c.height * k));
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0, repeats = 5, view = 0;
  bool quick = false;
  int only_size = 0, only_splats = 0;
  std::string model_path, dataset_path, backend_name = "cpu";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--repeats" && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (a == "--quick") quick = true;
    else if (a == "--size" && i + 1 < argc) only_size = std::atoi(argv[++i]);
    else if (a == "--splats" && i + 1 < argc) only_splats = std::atoi(argv[++i]);
    else if (a == "--model" && i + 1 < argc) model_path = argv[++i];
    else if (a == "--dataset" && i + 1 < argc) dataset_path = argv[++i];
    else if (a == "--view" && i + 1 < argc) view = std::atoi(argv[++i]);
    else if (a == "--backend" && i + 1 < argc) backend_name = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_rasterize [--backend cpu|cuda|vulkan|auto] [--threads N] [--repeats R] [--quick] "
                           "[--size 400|800] [--splats N] [--model scene.ply --dataset DIR [--view I]]\n");
      return 2;
    }
  }
  repeats = std::max(1, repeats);
  std::unique_ptr<Backend> be;
  try {
    BackendChoice choice = make_backend(backend_name, threads);
    if (!choice.fallback_note.empty()) std::fprintf(stderr, "bench_rasterize: %s\n", choice.fallback_note.c_str());
    be = std::move(choice.backend);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_rasterize: %s\n", e.what());
    return 2;
  }
  std::printf("glint rasterizer benchmark  backend=%s  device=%s  simd=%s  threads=%s  (ms: wall-clock medians of synchronous calls; dev: device clock)\n",
              be->name(), be->device().c_str(), cpu_simd_name(active_cpu_simd()),
              threads > 0 ? std::to_string(threads).c_str() : "default");
  std::printf("%-8s %-8s %9s %9s %12s %10s %10s %14s %14s %9s %9s %9s %9s\n", "size", "splats", "visible", "inst/M",
              "steps/M", "fwd ms", "fwd+bwd ms", "fwd Msteps/s", "f+b Msteps/s", "fwd cpu", "f+b cpu", "fwd dev",
              "f+b dev");
  const int sizes[] = {400, 800};
  try {
    if (!model_path.empty()) {  // a trained model, seen from one camera of a dataset
      if (dataset_path.empty()) throw Error("--model needs --dataset DIR for its camera");
      const GaussianModel m = load_model(model_path);
      const Dataset data = load_dataset(dataset_path);
      const auto& views = data.test.empty() ? data.train : data.test;
      if (view < 0 || std::size_t(view) >= views.size()) throw Error(dataset_path, "no view " + std::to_string(view));
      for (int size : sizes)
        if (only_size == 0 || size == only_size) measure(*be, m, resized(views[std::size_t(view)].camera, size), repeats);
    } else {
      // --splats N renders N splats (any count: the CPU Vulkan drivers take small scenes)
      const std::vector<int> counts = only_splats > 0 ? std::vector<int>{only_splats} : std::vector<int>{100000, 300000};
      for (int n : counts) {
        if (quick && n > 100000) continue;
        const GaussianModel m = lego_like(n, 42);
        for (int size : sizes)
          if (only_size == 0 || size == only_size) measure(*be, m, orbit_camera(size), repeats);
      }
    }
  } catch (const Error& e) {  // a bad file, or a device error on the way
    std::fprintf(stderr, "bench_rasterize: %s\n", e.what());
    return 2;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("peak RSS: %.1f MiB\n", ru.ru_maxrss / 1024.0);
  if (const long long peak = be->peak_device_memory_bytes(); peak >= 0)
    std::printf("peak device memory: %.1f MiB\n", double(peak) / (1024.0 * 1024.0));
  return 0;
}
