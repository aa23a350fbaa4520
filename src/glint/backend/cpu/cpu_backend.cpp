// The CPU backend: checks its inputs, picks the kernel build (SIMD path), recycles forward
// states and runs the rasterizer's stages (stages/stages.h; docs/RASTERIZER.md) in order:
//   forward:  frame -> project -> count_offsets -> depth_sort -> tile_lists -> tile_order
//             -> blend (+ compose per band of tile rows)
//   backward: record_slots (when the forward was not for_backward) -> backward_tiles
//             -> splat_vjps
// No float atomics anywhere, so results are bit-identical for every thread count.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glint/backend/backward_checks.h"
#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_forward_state.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/cpu/splat_kernels.h"
#include "glint/backend/cpu/stages/stages.h"
#include "glint/core/error.h"

namespace glint {

// ---------------------------------------------------------------------------------------
// SIMD path selection
namespace {
bool cpu_has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
// x86-64-v4, what raster_avx512.cpp is compiled for (the CPU check also covers the OS
// saving the AVX-512 state).
bool cpu_has_avx512() {
#if defined(__x86_64__) || defined(__i386__)
  return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512cd");
#else
  return false;
#endif
}
std::atomic<int> g_simd_request{int(CpuSimd::kAuto)};

// GLINT_CPU_SIMD caps the build kAuto picks; an unknown value is reported once and ignored.
CpuSimd env_simd_cap() {
  const char* env = std::getenv("GLINT_CPU_SIMD");
  if (!env || !*env) return CpuSimd::kAvx512;
  const std::string v = env;
  if (v == "portable") return CpuSimd::kPortable;
  if (v == "avx2") return CpuSimd::kAvx2;
  if (v == "avx512" || v == "auto") return CpuSimd::kAvx512;
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    std::fprintf(stderr, "glint: warning: GLINT_CPU_SIMD=%s is not one of portable, avx2, avx512, auto; ignored\n",
                 env);
  return CpuSimd::kAvx512;
}
}  // namespace

void set_cpu_simd(CpuSimd mode) { g_simd_request.store(int(mode)); }

const char* cpu_simd_name(CpuSimd s) {
  switch (s) {
    case CpuSimd::kPortable: return "portable";
    case CpuSimd::kAvx2: return "avx2";
    case CpuSimd::kAvx512: return "avx512";
    case CpuSimd::kAuto: break;
  }
  return "auto";
}

CpuSimd active_cpu_simd() {
  auto want = CpuSimd(g_simd_request.load());
  if (want == CpuSimd::kAuto) want = env_simd_cap();
  if (want == CpuSimd::kAvx512 && cpu_has_avx512()) return CpuSimd::kAvx512;
  if (want != CpuSimd::kPortable && cpu_has_avx2()) return CpuSimd::kAvx2;
  return CpuSimd::kPortable;
}

namespace cpu {
namespace {

void check_model(const GaussianModel& m) {
  const std::size_t n = m.size();
  if (m.means.size() != 3 * n || m.log_scales.size() != 3 * n || m.quats.size() != 4 * n || m.sh_dc.size() != 3 * n ||
      m.sh_rest.size() != std::size_t(kShRestCoeffs) * 3 * n)
    throw Error("rasterizer: GaussianModel arrays have inconsistent sizes");
  if (n > std::size_t(std::numeric_limits<int>::max() / 2)) throw Error("rasterizer: too many splats");
}

// The processor's name as the kernel reports it, or "CPU" where it does not.
std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      if (const auto colon = line.find(':'); colon != std::string::npos && colon + 2 <= line.size())
        return line.substr(colon + 2);
  return "CPU";
}

class CpuBackend final : public Backend {
 public:
  // threads <= 0: as many as OpenMP would use now, read at every call, so that a caller
  // can change it between frames (omp_set_num_threads; core/thread_governor.h).
  explicit CpuBackend(int threads) : requested_(threads) {}
  const char* name() const override { return "cpu"; }
  std::string device() const override {
    const int t = threads();
    return cpu_model_name() + " (" + cpu_simd_name(active_cpu_simd()) + " kernels, " + std::to_string(t) +
           (t == 1 ? " thread)" : " threads)");
  }

  void forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                    RenderOutput& out) override;
  void forward_views(const GaussianModel& model, const std::vector<Camera>& cameras, const RenderSettings& settings,
                     std::vector<RenderOutput>& outs) override;
  void backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                const RenderOutput& out, const RenderGradIn& grad_in, ModelGrad& grad) override;
  std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) override {
    return make_cpu_training_session(*this, setup, std::move(initial));
  }

 private:
  // A state is handed out again once no RenderOutput refers to it any more, so steady
  // rendering (training, benchmarks) reuses its buffers instead of faulting in fresh pages.
  std::shared_ptr<CpuForwardState> take_state();
  // The forward's stages on `st` with `threads` threads; out.saved is left to the caller.
  static void render(CpuForwardState& st, const GaussianModel& model, const Camera& camera,
                     const RenderSettings& settings, RenderOutput& out, int threads);
  int threads() const { return requested_ > 0 ? requested_ : omp_get_max_threads(); }
  int requested_;
  int threads_ = 1;  // this call's
  std::vector<float> records_;  // backward's per-instance gradient records, reused
  std::vector<std::uint32_t> slots_, slot_work_;  // backward's record slot of each instance
  std::vector<std::shared_ptr<CpuForwardState>> pool_;
};

std::shared_ptr<CpuForwardState> CpuBackend::take_state() {
  for (auto& p : pool_)
    if (p.use_count() == 1) return p;
  auto st = std::make_shared<CpuForwardState>();
  if (pool_.size() < 3) pool_.push_back(st);
  return st;
}

void check_camera(const Camera& camera) {
  if (camera.width <= 0 || camera.height <= 0 || !(camera.fx > 0) || !(camera.fy > 0))
    throw Error("rasterizer: camera '" + camera.name + "' has no valid size or focal length");
}

void CpuBackend::render(CpuForwardState& st, const GaussianModel& model, const Camera& camera,
                        const RenderSettings& asked, RenderOutput& out, int threads) {
  RenderSettings settings = asked;  // the backward reads them back from the state
  settings.antialiased = asked.antialiased || model.antialiased;
  stage::frame(st, model, camera, settings);
  out.radii.resize(st.n);  // projection writes every splat's
  stage::project(st, model, camera, settings, out.radii.data(), threads);
  stage::count_offsets(st, threads);
  stage::depth_sort(st, threads);
  stage::tile_lists(st, settings.for_backward, threads);
  stage::tile_order(st);
  stage::blend(st, out, threads);
  out.num_visible = st.num_visible;
  out.num_instances = std::int64_t(st.num_instances);
}

void CpuBackend::forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                              RenderOutput& out) {
  check_model(model);
  check_camera(camera);
  out.saved.reset();  // so that its state can be taken again
  threads_ = threads();
  std::shared_ptr<CpuForwardState> st = take_state();
  render(*st, model, camera, settings, out, threads_);
  out.saved = std::move(st);
}

// Whole views to threads: a small view split across threads spends much of its time in
// the stages' fork and join, and the result is the same bits at any thread count.
void CpuBackend::forward_views(const GaussianModel& model, const std::vector<Camera>& cameras,
                               const RenderSettings& settings, std::vector<RenderOutput>& outs) {
  const int t = std::min(threads(), static_cast<int>(cameras.size()));
  if (t <= 1) return Backend::forward_views(model, cameras, settings, outs);
  check_model(model);
  for (const Camera& c : cameras) check_camera(c);
  outs.resize(cameras.size());
  // States from the pool, held here so that each thread gets its own: a batch of small
  // maps after a large view then reuses that view's buffers instead of faulting in new ones.
  std::vector<std::shared_ptr<CpuForwardState>> states;
  for (int i = 0; i < t; ++i) states.push_back(take_state());
  std::exception_ptr error;
  const int n = static_cast<int>(cameras.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
  for (int i = 0; i < n; ++i) {
    try {
      outs[i].saved.reset();
      render(*states[static_cast<std::size_t>(omp_get_thread_num())], model, cameras[i], settings, outs[i], 1);
    } catch (...) {
#pragma omp critical(glint_forward_views_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

void CpuBackend::backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                          const RenderOutput& out, const RenderGradIn& gin, ModelGrad& grad) {
  if (!out.saved) throw Error("rasterizer backward: the RenderOutput holds no forward state");
  const auto* st = dynamic_cast<const CpuForwardState*>(out.saved.get());
  if (!st) throw Error("rasterizer backward: the RenderOutput's forward state is another backend's");
  check_backward_call(*st, model, camera, gin);
  (void)settings;
  grad.resize(st->n, st->settings.want_mean2d_abs);
  threads_ = threads();
  const std::size_t ninst = st->inst_splat.size();
  // one cache line per record, written whole with streaming stores (store_record)
  float* records = line_aligned(records_, std::max<std::size_t>(1, ninst * kRecordFloats));
  const std::uint32_t* inst_slot = st->inst_slot.data();
  if (!st->settings.for_backward) {  // the forward skipped the record slots
    std::uint32_t* slots = grow(slots_, std::max<std::size_t>(1, ninst));
    stage::record_slots(*st, slot_work_, slots, threads_);
    inst_slot = slots;
  }
  stage::backward_tiles(*st, gin, inst_slot, records, threads_);
  stage::splat_vjps(*st, model, camera, records, grad, threads_);
}

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<cpu::CpuBackend>(threads); }

}  // namespace glint
