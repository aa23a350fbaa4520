// The Vulkan backend: uploads the model, runs the forward's and backward's stages
// (forward_stages.h) on the device and downloads what the caller asked for: colour and every
// output of backend/render_outputs.h, with their gradients. A render that wants AbsGS's
// statistic, which has no shader, goes whole to a CPU backend it keeps, said once on stderr.
// Training: the device training session (device_training_session.h).
#include "glint/backend/backward_checks.h"
#include "glint/backend/vulkan/vulkan_backend.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/device_training_session.h"
#include "glint/backend/vulkan/forward_stages.h"
#include "glint/core/error.h"
#include "glint/render/view.h"

namespace glint {
namespace {

using vk::Array;

// The stream's timestamp slots around the forward's and the backward's stages
// (last_stage_times).
constexpr std::uint32_t kForwardStart = 0, kForwardEnd = 1, kBackwardStart = 2, kBackwardEnd = 3;
static_assert(kBackwardEnd < vk::Stream::kTimestamps);

struct VulkanForwardState final : ForwardState {
  vk::DeviceModel model;
  mutable vk::DeviceFrame frame;
  std::size_t n = 0;
  const float* model_means = nullptr;
  int width = 0, height = 0;
  RenderSettings settings;
};

std::uint32_t aov_flags(const RenderSettings& s) {
  std::uint32_t f = 0;
  for (int i = 0; i < aov::kCount; ++i)
    if (wants(s, aov::Id(i))) f |= aov::kernel_flag(aov::Id(i));
  return f;
}

template <class T>
void download_into(vk::Stream& s, const Array<T>& a, std::vector<T>& v, std::size_t n) {
  v.resize(n);
  s.download(a.buffer(), 0, v.data(), n * sizeof(T));
}

void download_image(vk::Stream& s, const Array<float>& a, int w, int h, int c, ImageF& img) {
  const std::size_t n = std::size_t(w) * std::size_t(h) * std::size_t(c);
  if (img.width != w || img.height != h || img.channels != c || img.data.size() != n) img = ImageF(w, h, c);
  s.download(a.buffer(), 0, img.data.data(), n * sizeof(float));
}

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(std::shared_ptr<vk::Instance> instance, int index)
      : device_(vk::shared_device(std::move(instance), index)),
        stream_(std::make_unique<vk::Stream>(*device_)) {}
  ~VulkanBackend() override {
    pool_.clear();
    grads_ = {};
    stream_.reset();
  }
  const char* name() const override { return "vulkan"; }
  std::string device() const override {
    const vk::DeviceInfo& i = device_->info();
    // eval.json's "device": the device, its driver with the driver's version, and the API's
    return i.name + " (" + vk::type_name(i.type) + ", " + i.driver + ", driver version " + i.driver_version +
           ", Vulkan " + vk::version_string(i.api_version) + ")";
  }
  StageTimes last_stage_times() const override { return times_; }
  long long peak_device_memory_bytes() const override { return static_cast<long long>(device_->peak_memory()); }

  void forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                    RenderOutput& out) override;
  void backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                const RenderOutput& out, const RenderGradIn& grad_in, ModelGrad& grad) override;
  std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) override {
    return vk::make_device_training_session(device_, setup, std::move(initial));
  }
  vk::Device& vulkan_device() { return *device_; }

 private:
  std::shared_ptr<VulkanForwardState> take_state() {
    for (auto& p : pool_)
      if (p.use_count() == 1) return p;
    auto st = std::make_shared<VulkanForwardState>();
    if (pool_.size() < 3) pool_.push_back(st);
    return st;
  }
  void say_cpu(const char* what) {
    if (!said_cpu_)
      std::fprintf(stderr, "glint: the Vulkan backend has no shader for %s; renders that ask for it run on the CPU\n",
                   what);
    said_cpu_ = true;
  }

  std::shared_ptr<vk::Device> device_;
  std::unique_ptr<vk::Stream> stream_;
  std::vector<std::shared_ptr<VulkanForwardState>> pool_;
  vk::DeviceGrads grads_;
  std::unique_ptr<Backend> cpu_;
  bool said_cpu_ = false;
  StageTimes times_;
};

void VulkanBackend::forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                                 RenderOutput& out) {
  times_ = {};
  if (settings.want_mean2d_abs) {
    say_cpu("mean2d_abs (AbsGS's statistic)");
    if (!cpu_) cpu_ = make_cpu_backend();
    cpu_->forward_into(model, camera, settings, out);
    return;
  }
  const std::size_t n = model.size();
  if (model.means.size() != 3 * n || model.log_scales.size() != 3 * n || model.quats.size() != 4 * n ||
      model.sh_dc.size() != 3 * n || model.sh_rest.size() != std::size_t(kShRestCoeffs) * 3 * n)
    throw Error("rasterizer: GaussianModel arrays have inconsistent sizes");
  if (n > std::size_t(1) << 30) throw Error("rasterizer: too many splats for the Vulkan backend");
  if (camera.width <= 0 || camera.height <= 0 || !(camera.fx > 0) || !(camera.fy > 0))
    throw Error("rasterizer: camera '" + camera.name + "' has no valid size or focal length");
  out.saved.reset();
  std::shared_ptr<VulkanForwardState> st = take_state();
  vk::Stream& s = *stream_;
  st->model.upload(s, model);
  st->n = n;
  st->model_means = model.means.data();
  st->width = camera.width;
  st->height = camera.height;
  st->settings = settings;
  st->settings.antialiased = settings.antialiased || model.antialiased;
  const int degree = std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : model.sh_degree, 0, kMaxShDegree);
  s.timestamp(kForwardStart);  // the stages alone: the model's upload before, the downloads after
  vk::forward_frame(s, st->model, render::make_view<float>(camera, settings.near_plane), degree,
                    st->settings.antialiased, settings.background, st->frame, aov_flags(settings),
                    settings.median_depth_only);
  s.timestamp(kForwardEnd);
  const vk::DeviceFrame& f = st->frame;
  const int w = camera.width, h = camera.height;
  if (settings.want_rgb)
    download_image(s, f.rgb, w, h, 3, out.rgb);
  else
    out.rgb = ImageF();
  const Array<float>* images[aov::kCount] = {};
  images[aov::alpha] = &f.alpha;
  images[aov::depth] = &f.depth;
  images[aov::median_depth] = &f.median;
  images[aov::normal] = &f.normal;
  images[aov::distortion] = &f.distortion;
  images[aov::count] = &f.count;
  for (int i = 0; i < aov::kCount; ++i) {
    const auto id = aov::Id(i);
    if (wants(settings, id) && images[i])
      download_image(s, *images[i], w, h, aov::kInfo[i].channels, image_of(out, id));
    else
      image_of(out, id) = ImageF();
  }
  download_into(s, f.radii, out.radii, n);
  vk::download_frame_status(s, st->frame);
  s.finish();
  vk::check_frame_status(*device_, f, "blend");
  times_.forward_ms = s.elapsed_ms(kForwardStart, kForwardEnd);
  out.num_visible = std::count_if(out.radii.begin(), out.radii.end(), [](int r) { return r > 0; });
  out.num_instances = static_cast<std::int64_t>(f.instances);
  out.saved = std::move(st);
}

void VulkanBackend::backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                             const RenderOutput& out, const RenderGradIn& gin, ModelGrad& grad) {
  if (!out.saved) throw Error("rasterizer backward: the RenderOutput holds no forward state");
  const auto* st = dynamic_cast<const VulkanForwardState*>(out.saved.get());
  if (!st) {  // a render forward_into handed to the CPU backend (which rejects any other state)
    if (!cpu_) throw Error("rasterizer backward: the forward state is not the Vulkan backend's");
    cpu_->backward(model, camera, settings, out, gin, grad);
    return;
  }
  check_backward_call(*st, model, camera, gin);
  vk::Stream& s = *stream_;
  vk::Device& d = *device_;
  const std::size_t pixels = std::size_t(st->width) * std::size_t(st->height);
  vk::DeviceGrads& g = grads_;
  g.d_rgb.resize(d, 3 * pixels);
  if (gin.d_rgb)
    s.upload(g.d_rgb.buffer(), 0, gin.d_rgb, 3 * pixels * sizeof(float));
  else
    s.fill(g.d_rgb.buffer(), 0, g.d_rgb.bytes(), 0);
  g.grad_flags = 0;
  const auto up = [&](Array<float>& a, const float* host, std::size_t per_pixel, std::uint32_t flag) {
    if (!host) return;
    a.resize(d, per_pixel * pixels);
    s.upload(a.buffer(), 0, host, per_pixel * pixels * sizeof(float));
    g.grad_flags |= flag;
  };
  up(g.d_alpha, gin.d_alpha, 1, GLINT_GRAD_ALPHA);
  up(g.d_depth, gin.d_depth, 1, GLINT_GRAD_DEPTH);
  up(g.d_median, gin.d_median_depth, 1, GLINT_GRAD_MEDIAN);
  up(g.d_normal, gin.d_normal, 3, GLINT_GRAD_NORMAL);
  up(g.d_distortion, gin.d_distortion, 1, GLINT_GRAD_DISTORTION);
  s.timestamp(kBackwardStart);
  vk::backward_frame(s, st->model, st->frame, g);
  s.timestamp(kBackwardEnd);
  const std::size_t n = st->n;
  grad.resize(n, false);
  s.download(g.means.buffer(), 0, grad.means.data(), 3 * n * sizeof(float));
  s.download(g.log_scales.buffer(), 0, grad.log_scales.data(), 3 * n * sizeof(float));
  s.download(g.quats.buffer(), 0, grad.quats.data(), 4 * n * sizeof(float));
  s.download(g.opacity.buffer(), 0, grad.opacity_logits.data(), n * sizeof(float));
  s.download(g.sh_dc.buffer(), 0, grad.sh_dc.data(), 3 * n * sizeof(float));
  s.download(g.sh_rest.buffer(), 0, grad.sh_rest.data(), 45 * n * sizeof(float));
  s.download(g.mean2d.buffer(), 0, grad.mean2d.data(), 2 * n * sizeof(float));
  vk::download_frame_status(s, st->frame);
  s.finish();
  vk::check_frame_status(d, st->frame, "blend backward");
  times_.backward_ms = s.elapsed_ms(kBackwardStart, kBackwardEnd);
  grad.sh_rest_live = 3 * kShRestCoeffs;
}


}  // namespace

void set_vulkan_binding_limit(Backend& backend, unsigned long long bytes) {
  auto* b = dynamic_cast<VulkanBackend*>(&backend);
  if (!b) throw Error("set_vulkan_binding_limit: not a Vulkan backend");
  b->vulkan_device().set_binding_limit(bytes);
}

std::vector<VulkanDeviceSummary> vulkan_devices(std::string* why) {
  std::vector<VulkanDeviceSummary> out;
  for (const vk::DeviceInfo& d : vk::list_devices(why)) {
    VulkanDeviceSummary s;
    s.index = d.index;
    s.name = d.name;
    s.type = vk::type_name(d.type);
    s.driver = d.driver + ", driver version " + d.driver_version;  // as eval.json names it
    s.api = vk::version_string(d.api_version);
    s.subgroup_size = d.subgroup_size;
    s.max_binding_bytes = d.max_storage_buffer_range;
    s.memory_bytes = d.device_local_bytes;
    s.gpu = d.is_gpu();
    s.usable = d.usable;
    s.unusable_reason = d.unusable_reason;
    out.push_back(std::move(s));
  }
  return out;
}

bool vulkan_device_present(bool gpu_only, int device, std::string* why, int* chosen) {
  std::string reason;
  auto instance = vk::shared_instance(&reason);
  if (!instance) {
    if (why) *why = "no Vulkan device was found (" + reason + ")";
    return false;
  }
  const int index = vk::choose_device(instance->devices(), device, gpu_only, &reason);
  if (index < 0) {
    if (why) *why = reason;
    return false;
  }
  if (chosen) *chosen = index;
  return true;
}

std::unique_ptr<Backend> make_vulkan_backend(int device, bool gpu_only) {
  std::string why;
  auto instance = vk::shared_instance(&why);
  if (!instance) throw Error("--backend vulkan", "no Vulkan device was found (" + why + ")");
  const int index = vk::choose_device(instance->devices(), device, gpu_only, &why);
  if (index < 0) throw Error("--backend vulkan", why);
  return std::make_unique<VulkanBackend>(std::move(instance), index);
}

}  // namespace glint
