// The CUDA backend: uploads the model, runs the forward's and backward's device stages
// (forward_stages.h) and downloads what the caller asked for: colour and every output of
// backend/render_outputs.h, with their gradients. A render that wants AbsGS's statistic,
// which has no device kernel, goes whole to the CPU backend it keeps, said once on stderr
// (its backward then goes there too, by the forward state's type). Training runs on the
// device (device_training_session.h), the geometry regularisers included. Events around
// the forward's and backward's stages give benchmarks their device time (last_stage_times).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "glint/backend/backward_checks.h"
#include "glint/backend/cuda/cuda_backend.h"
#include "glint/backend/cuda/device_outputs.h"
#include "glint/backend/cuda/device_training_session.h"
#include "glint/backend/cuda/forward_stages.h"
#include "glint/backend/cuda/frame_output.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/core/error.h"
#include "glint/render/view.h"

namespace glint {
namespace {

using cuda::download;
using cuda::upload;

// A forward's device state: the model as it was uploaded and the frame's buffers, which
// the backward reads (and in which it writes its per-instance records, hence mutable).
struct CudaForwardState final : ForwardState {
  cuda::DeviceBuffer<float> means, log_scales, quats, opacity, sh_dc, sh_rest;
  mutable cuda::DeviceFrame frame;
  std::size_t n = 0;
  const float* model_means = nullptr;
  int width = 0, height = 0;
  RenderSettings settings;
  cuda::SplatGeometry geometry() const {
    return {means.cspan(), log_scales.cspan(), quats.cspan(), opacity.cspan(), sh_dc.cspan(), sh_rest.cspan()};
  }
};

// A start and a stop event on the default stream, where every stage runs; bracketing
// stages with it times them on the device's clock. A failed event call leaves the span
// untimed (and clears the error so that no later launch check reports it).
class EventSpan {
 public:
  EventSpan() = default;
  EventSpan(const EventSpan&) = delete;
  EventSpan& operator=(const EventSpan&) = delete;
  ~EventSpan() {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
  }
  void begin() {
    recorded_ = false;
    if (!start_ && !ok(cudaEventCreate(&start_))) start_ = nullptr;
    if (!stop_ && !ok(cudaEventCreate(&stop_))) stop_ = nullptr;
    began_ = start_ && stop_ && ok(cudaEventRecord(start_, 0));
  }
  void end() { recorded_ = began_ && ok(cudaEventRecord(stop_, 0)); }
  void clear() { recorded_ = began_ = false; }
  double ms() const {
    float ms = -1.f;
    if (!recorded_ || !ok(cudaEventSynchronize(stop_)) || !ok(cudaEventElapsedTime(&ms, start_, stop_))) return -1;
    return ms;
  }

 private:
  static bool ok(cudaError_t e) {
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  }
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool began_ = false, recorded_ = false;
};

class CudaBackend final : public Backend {
 public:
  const char* name() const override { return "cuda"; }
  StageTimes last_stage_times() const override { return {forward_time_.ms(), backward_time_.ms()}; }
  std::string device() const override {
    int id = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&id) != cudaSuccess || cudaGetDeviceProperties(&p, id) != cudaSuccess) return "CUDA device";
    return std::string(p.name) + " (compute " + std::to_string(p.major) + "." + std::to_string(p.minor) + ", " +
           std::to_string(p.totalGlobalMem >> 20) + " MiB)";
  }
  long long peak_device_memory_bytes() const override { return cuda::device_memory_use().peak.load(); }
  // What the device does not draw goes to the kept CPU backend as one batch.
  void forward_views(const GaussianModel& model, const std::vector<Camera>& cameras, const RenderSettings& settings,
                     std::vector<RenderOutput>& outs) override {
    if (const char* what = cuda::missing_device_output(settings)) {
      say_cpu(what);
      cpu_->forward_views(model, cameras, settings, outs);
      return;
    }
    Backend::forward_views(model, cameras, settings, outs);
  }

  void forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                    RenderOutput& out) override;
  void backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                const RenderOutput& out, const RenderGradIn& grad_in, ModelGrad& grad) override;
  std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) override {
    return cuda::make_device_training_session(setup, std::move(initial));
  }

 private:
  // As the CPU backend: a state goes out again once no RenderOutput holds it, so steady
  // rendering reuses its device buffers.
  std::shared_ptr<CudaForwardState> take_state() {
    for (auto& p : pool_)
      if (p.use_count() == 1) return p;
    auto st = std::make_shared<CudaForwardState>();
    if (pool_.size() < 3) pool_.push_back(st);
    return st;
  }
  std::vector<std::shared_ptr<CudaForwardState>> pool_;
  void say_cpu(const char* what) {
    if (!said_cpu_)
      std::fprintf(stderr, "glint: the CUDA backend has no kernel for %s; renders that ask for it run on the CPU\n",
                   what);
    said_cpu_ = true;
  }
  std::unique_ptr<Backend> cpu_ = make_cpu_backend();  // renders what the device cannot yet
  bool said_cpu_ = false;
  cuda::DeviceBuffer<float> d_rgb_, d_alpha_, d_depth_, d_median_, d_normal_, d_distortion_;
  cuda::DeviceGrads grads_;
  EventSpan forward_time_, backward_time_;
};

void CudaBackend::forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                               RenderOutput& out) {
  forward_time_.clear();
  if (const char* what = cuda::missing_device_output(settings)) {
    say_cpu(what);
    cpu_->forward_into(model, camera, settings, out);
    return;
  }
  const std::size_t n = model.size();
  if (model.means.size() != 3 * n || model.log_scales.size() != 3 * n || model.quats.size() != 4 * n ||
      model.sh_dc.size() != 3 * n || model.sh_rest.size() != std::size_t(kShRestCoeffs) * 3 * n)
    throw Error("rasterizer: GaussianModel arrays have inconsistent sizes");
  cuda::check_size("splats", n, cuda::kMaxSplats);
  if (camera.width <= 0 || camera.height <= 0 || !(camera.fx > 0) || !(camera.fy > 0))
    throw Error("rasterizer: camera '" + camera.name + "' has no valid size or focal length");
  out.saved.reset();
  std::shared_ptr<CudaForwardState> st = take_state();
  upload(st->means, model.means.data(), model.means.size());
  upload(st->log_scales, model.log_scales.data(), model.log_scales.size());
  upload(st->quats, model.quats.data(), model.quats.size());
  upload(st->opacity, model.opacity_logits.data(), model.opacity_logits.size());
  upload(st->sh_dc, model.sh_dc.data(), model.sh_dc.size());
  upload(st->sh_rest, model.sh_rest.data(), model.sh_rest.size());
  st->n = n;
  st->model_means = model.means.data();
  st->width = camera.width;
  st->height = camera.height;
  st->settings = settings;
  st->settings.antialiased = settings.antialiased || model.antialiased;
  const int degree = std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : model.sh_degree, 0, kMaxShDegree);
  forward_time_.begin();
  cuda::forward_frame(render::make_view<float>(camera, settings.near_plane), st->geometry(), degree,
                      st->settings.antialiased, settings.background, st->frame, cuda::device_aov_flags(settings),
                      settings.median_depth_only);
  forward_time_.end();

  cuda::download_frame(st->frame, settings, out);
  out.saved = std::move(st);
}

void CudaBackend::backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                           const RenderOutput& out, const RenderGradIn& gin, ModelGrad& grad) {
  backward_time_.clear();
  if (!out.saved) throw Error("rasterizer backward: the RenderOutput holds no forward state");
  const auto* st = dynamic_cast<const CudaForwardState*>(out.saved.get());
  if (!st) {  // a render forward_into handed to the CPU backend (which rejects any other state)
    cpu_->backward(model, camera, settings, out, gin, grad);
    return;
  }
  check_backward_call(*st, model, camera, gin);
  const std::size_t pixels = static_cast<std::size_t>(st->width) * static_cast<std::size_t>(st->height);
  if (gin.d_rgb) {
    upload(d_rgb_, gin.d_rgb, 3 * pixels);
  } else {  // null is zero
    d_rgb_.resize(3 * pixels);
    cuda::clear(d_rgb_);
  }
  const auto grad_span = [&](cuda::DeviceBuffer<float>& b, const float* host, std::size_t per_pixel) {
    if (!host) return cuda::DeviceSpan<const float>{};
    upload(b, host, per_pixel * pixels);
    return b.cspan();
  };
  cuda::BlendGradIn in{d_rgb_.cspan(), grad_span(d_alpha_, gin.d_alpha, 1)};
  in.d_depth = grad_span(d_depth_, gin.d_depth, 1);
  in.d_median = grad_span(d_median_, gin.d_median_depth, 1);
  in.d_normal = grad_span(d_normal_, gin.d_normal, 3);
  in.d_distortion = grad_span(d_distortion_, gin.d_distortion, 1);
  backward_time_.begin();
  cuda::backward_frame(st->geometry(), st->frame, in, grads_);
  backward_time_.end();
  cuda::download_grads(grads_, st->n, grad);
}

}  // namespace

namespace {
// The runtime's words for "no driver" name a version mismatch; say what it usually means.
std::string no_device_reason(cudaError_t e) {
  if (e == cudaErrorInsufficientDriver)
    return "no NVIDIA driver is loaded, or it is older than the CUDA " + std::to_string(CUDART_VERSION / 1000) + "." +
           std::to_string(CUDART_VERSION % 1000 / 10) + " runtime this glint was built with";
  if (e == cudaErrorNoDevice) return "the NVIDIA driver sees no GPU";
  return cudaGetErrorString(e);
}
}  // namespace

bool cuda_device_present(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = "no CUDA device was found (" + no_device_reason(e) + ")";
    cudaGetLastError();  // so that later runtime calls do not report this one again
    return false;
  }
  if (n <= 0) {
    if (why) *why = "no CUDA device was found";
    return false;
  }
  return true;
}

std::unique_ptr<Backend> make_cuda_backend() {
  std::string why;
  if (!cuda_device_present(&why)) throw Error("--backend cuda", why);
  return std::make_unique<CudaBackend>();
}

}  // namespace glint
