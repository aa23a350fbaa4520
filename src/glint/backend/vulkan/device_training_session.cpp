#include "glint/backend/vulkan/device_training_session.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "glint/backend/target_view.h"
#include "glint/backend/vulkan/context.h"
#include "glint/backend/vulkan/forward_stages.h"
#include "glint/backend/vulkan/shader_interfaces.h"
#include "glint/core/error.h"
#include "glint/render/view.h"
#include "glint/train/geometry_loss.h"
#include "glint/train/ssim_math.h"

namespace glint::vk {
namespace {

namespace sh = shaders;

// splat_step.comp's modes (the push constants' slot)
constexpr std::uint32_t kVisibility = 0, kDensifyStats = 1, kFlatten = 2, kMcmc = 3;
// status words: [g] group g left a non-finite value
constexpr std::size_t kStatus = kNumParamGroups;

std::uint32_t aov_flags_of(const RenderSettings& s) {
  std::uint32_t f = 0;
  for (int i = 0; i < aov::kCount; ++i)
    if (wants(s, aov::Id(i))) f |= aov::kernel_flag(aov::Id(i));
  return f;
}

// An 8-bit image as uint words, 4 bytes a word (the shaders unpack them: 8-bit storage is
// optional in Vulkan).
void pack_bytes(const std::vector<std::uint8_t>& bytes, std::vector<std::uint32_t>& words) {
  words.assign((bytes.size() + 3) / 4, 0u);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
}

class VulkanTrainingSession final : public TrainingSession {
 public:
  VulkanTrainingSession(std::shared_ptr<Device> device, const TrainingSetup& setup, SplatSet initial)
      : device_(std::move(device)), s_(*device_), setup_(setup) {
    upload_images();
    load(std::move(initial));
  }

  void load(SplatSet set) override {
    host_ = std::move(set);
    upload_state();
    host_current_ = true;
    checked_ = false;
    rendered_ = false;
  }
  const SplatSet& state() override {
    if (!host_current_) download_state();
    host_current_ = true;
    return host_;
  }
  std::size_t size() const override { return model_.n; }
  void set_sh_degree(int degree) override { host_.model.sh_degree = degree; }

  Camera set_target(std::size_t view, int factor, const std::array<float, 3>& bg) override;
  void render(const RenderSettings& settings) override;
  double photometric_loss() override;
  double normal_consistency(float weight, float edge_eps) override;
  double distortion(float weight) override;
  void backward() override;
  double flatten(float weight) override;
  std::size_t visibility() override;
  int adam(const GroupRates& rates, bool selective, int sh_degree) override;
  void accumulate_densify_stats(long step, const DensifyOptions& options) override;
  DensifyReport densify(long step, double extent, const DensifyOptions& options, Rng& rng) override;
  double mcmc_regularizer(const McmcOptions& options) override;
  void mcmc_noise(float means_lr, const McmcOptions& options, Rng& rng) override;
  McmcReport mcmc_refine(long step, const McmcOptions& options, Rng& rng) override;
  int first_non_finite_group(bool all) override;
  std::size_t round_trips() const { return round_trips_; }

 private:
  Array<float>& param(int g) {
    switch (g) {
      case kMeans: return model_.means;
      case kLogScales: return model_.log_scales;
      case kQuats: return model_.quats;
      case kOpacity: return model_.opacity;
      case kShDc: return model_.sh_dc;
      default: return model_.sh_rest;
    }
  }
  Array<float>& grad(int g) {
    switch (g) {
      case kMeans: return grads_.means;
      case kLogScales: return grads_.log_scales;
      case kQuats: return grads_.quats;
      case kOpacity: return grads_.opacity;
      case kShDc: return grads_.sh_dc;
      default: return grads_.sh_rest;
    }
  }
  void upload_images();
  void upload_state();
  void download_state();
  // The arrays to the host, train/'s CPU code on them, the arrays back.
  template <class F>
  auto on_host(F&& f) {
    state();
    auto result = f(host_);
    upload_state();
    ++round_trips_;
    return result;
  }
  // Records the fixed-order block sums of values[0, n) (partial sums `which`); sum_of reads
  // them after the stream's finish.
  void record_sum(const Array<float>& values, std::size_t n, int which);
  double sum_of(int which) const;
  // One splat_step dispatch over every chunk of splats.
  void splat_step(std::uint32_t mode, const SplatStepPush& base);
  void clear_status();
  std::array<std::uint32_t, kStatus> read_status();  // records the download and finishes

  std::shared_ptr<Device> device_;
  Stream s_;
  TrainingSetup setup_;
  std::size_t view_ = 0;  // the step's training view
  std::size_t round_trips_ = 0;
  SplatSet host_;             // the scalars always; the arrays as of the last load, state or round trip
  bool host_current_ = true;  // host_'s arrays equal the device's
  bool checked_ = false;      // a full finiteness check has read the parameters since they were loaded
  DeviceModel model_;
  std::array<Array<float>, kNumParamGroups> m_, v_;
  Array<float> grad_accum_, grad_count_, max_radii_;
  // the training views as decoded (8-bit, packed), when they fit the budget
  std::vector<Array<std::uint32_t>> images_;
  std::vector<std::array<int, 3>> image_dims_;
  std::vector<std::uint32_t> packed_;
  Array<std::uint32_t> staging_;
  // the step's state
  Camera camera_;
  int target_w_ = 0, target_h_ = 0;
  Array<float> target_;
  RenderSettings settings_;
  bool rendered_ = false;
  DeviceFrame frame_;
  DeviceGrads grads_;
  Array<float> derivs_, ssim_map_, abs_diff_;
  std::array<Array<float>, 2> partials_;
  std::array<std::vector<float>, 2> partials_host_;
  Array<float> visible_, terms_, terms2_;
  Array<std::uint32_t> status_;
  std::array<std::uint32_t, kStatus> status_host_{};
  Array<float> none_f_;
  Array<std::int32_t> none_i_;
  bool nc_grad_ = false, distortion_grad_ = false;
};

void VulkanTrainingSession::upload_images() {
  const std::vector<View>& views = setup_.dataset->train;
  std::size_t bytes = 0;
  for (const View& v : views)
    bytes += 4 * static_cast<std::size_t>(v.camera.width) * static_cast<std::size_t>(v.camera.height);
  if (bytes > (setup_.device_images_mb << 20)) return;  // streamed: set_target uploads the step's view
  images_.resize(views.size());
  image_dims_.resize(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const std::shared_ptr<const Image8> img = setup_.images->get(i);
    pack_bytes(img->data, packed_);
    images_[i].resize(*device_, packed_.size());
    s_.upload(images_[i].buffer(), 0, packed_.data(), packed_.size() * 4);
    s_.finish();  // the staging memory is the stream's until then
    image_dims_[i] = {img->width, img->height, img->channels};
  }
}

void VulkanTrainingSession::upload_state() {
  Device& d = *device_;
  model_.upload(s_, host_.model);
  const auto up = [&](Array<float>& a, const std::vector<float>& v) {
    a.resize(d, v.size());
    if (!v.empty()) s_.upload(a.buffer(), 0, v.data(), v.size() * sizeof(float));
  };
  for (int g = 0; g < kNumParamGroups; ++g) {
    const AdamMoments& mom = host_.adam.groups()[static_cast<std::size_t>(g)];
    up(m_[static_cast<std::size_t>(g)], mom.m);
    up(v_[static_cast<std::size_t>(g)], mom.v);
  }
  up(grad_accum_, host_.grad_accum);
  up(grad_count_, host_.grad_count);
  up(max_radii_, host_.max_radii);
  none_f_.resize(d, 4);
  none_i_.resize(d, 4);
  status_.resize(d, kStatus);
  s_.finish();
}

void VulkanTrainingSession::download_state() {
  const auto down = [&](const Array<float>& a, std::vector<float>& v) {
    if (!v.empty()) s_.download(a.buffer(), 0, v.data(), v.size() * sizeof(float));
  };
  down(model_.means, host_.model.means);
  down(model_.log_scales, host_.model.log_scales);
  down(model_.quats, host_.model.quats);
  down(model_.opacity, host_.model.opacity_logits);
  down(model_.sh_dc, host_.model.sh_dc);
  down(model_.sh_rest, host_.model.sh_rest);
  for (int g = 0; g < kNumParamGroups; ++g) {
    AdamMoments& mom = host_.adam.groups()[static_cast<std::size_t>(g)];
    down(m_[static_cast<std::size_t>(g)], mom.m);
    down(v_[static_cast<std::size_t>(g)], mom.v);
  }
  down(grad_accum_, host_.grad_accum);
  down(grad_count_, host_.grad_count);
  down(max_radii_, host_.max_radii);
  s_.finish();
}

Camera VulkanTrainingSession::set_target(std::size_t view, int factor, const std::array<float, 3>& bg) {
  if (view >= setup_.dataset->train.size()) throw Error("Vulkan training: no training view " + std::to_string(view));
  view_ = view;
  Camera cam = setup_.dataset->train[view].camera;
  const Array<std::uint32_t>* src = nullptr;
  std::array<int, 3> dims{};
  if (factor <= 1 && view < images_.size()) {
    src = &images_[view];
    dims = image_dims_[view];
  } else {  // downscaled (coarse-to-fine) or streamed: the view as the CPU session builds it goes up
    const TargetView t = target_view(setup_, view, factor);
    const Image8& img = t.pixels();
    cam = t.camera;
    pack_bytes(img.data, packed_);
    staging_.resize(*device_, packed_.size());
    s_.upload(staging_.buffer(), 0, packed_.data(), packed_.size() * 4);
    src = &staging_;
    dims = {img.width, img.height, img.channels};
  }
  target_w_ = dims[0];
  target_h_ = dims[1];
  const std::size_t pixels = static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]);
  if (pixels >= (std::size_t(1) << 31) / 3)
    throw Error("Vulkan backend", std::to_string(pixels) + " pixels in a target, more than the 715827882 it indexes");
  target_.resize(*device_, 3 * pixels);
  TargetPush push{};
  push.width = dims[0];
  push.height = dims[1];
  push.channels = dims[2];
  push.count = static_cast<std::uint32_t>(pixels);
  for (int c = 0; c < 3; ++c) push.background[c] = bg[static_cast<std::size_t>(c)];
  dispatch<sh::TrainTarget>(s_, s_.groups_for(pixels, 256), push, in(*src), out(target_, 0, 3 * pixels));
  camera_ = cam;
  return cam;
}

void VulkanTrainingSession::render(const RenderSettings& settings) {
  if (settings.want_mean2d_abs)
    throw Error("Vulkan training", "the device renderer does not draw mean2d_abs (AbsGS's statistic)");
  if (camera_.width <= 0 || camera_.height <= 0 || !(camera_.fx > 0) || !(camera_.fy > 0))
    throw Error("rasterizer: camera '" + camera_.name + "' has no valid size or focal length");
  settings_ = settings;
  settings_.antialiased = settings.antialiased || host_.model.antialiased;
  const int degree =
      std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : host_.model.sh_degree, 0, kMaxShDegree);
  forward_frame(s_, model_, render::make_view<float>(camera_, settings.near_plane), degree, settings_.antialiased,
                settings.background, frame_, aov_flags_of(settings), settings.median_depth_only);
  download_frame_status(s_, frame_);
  s_.finish();
  check_frame_status(*device_, frame_, "blend");
  rendered_ = true;
  nc_grad_ = distortion_grad_ = false;
}

void VulkanTrainingSession::record_sum(const Array<float>& values, std::size_t n, int which) {
  const std::size_t blocks = (n + 4095) / 4096;
  Array<float>& part = partials_[static_cast<std::size_t>(which)];
  std::vector<float>& host = partials_host_[static_cast<std::size_t>(which)];
  part.resize(*device_, std::max<std::size_t>(blocks, 1));
  host.assign(blocks, 0.f);
  if (blocks == 0) return;
  const SumPush push{static_cast<std::uint32_t>(n), {0, 0, 0}};
  dispatch<sh::BlockSum>(s_, s_.groups_for(blocks * 256, 256), push, in(values, 0, n), out(part, 0, blocks));
  s_.download(part.buffer(), 0, host.data(), blocks * sizeof(float));
}

double VulkanTrainingSession::sum_of(int which) const {
  double total = 0;
  for (float v : partials_host_[static_cast<std::size_t>(which)]) total += static_cast<double>(v);
  return total;
}

double VulkanTrainingSession::photometric_loss() {
  if (!rendered_) throw Error("Vulkan training: photometric_loss before render");
  if (target_w_ != camera_.width || target_h_ != camera_.height)
    throw Error("Vulkan training: the target's size differs from the camera's");
  const int w = camera_.width, h = camera_.height;
  const std::size_t count = 3 * static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  const float lambda = setup_.loss.lambda_dssim;
  Device& d = *device_;
  grads_.d_rgb.resize(d, count);
  abs_diff_.resize(d, count);
  LossPush p{};
  p.width = w;
  p.height = h;
  p.channels = 3;
  p.l1_scale = (1.f - lambda) / static_cast<float>(count);
  p.lambda = lambda;
  p.inv_count = static_cast<float>(1.0 / static_cast<double>(count));
  p.c1 = static_cast<float>(kSsimC1);
  p.c2 = static_cast<float>(kSsimC2);
  const auto win = ssim_window_weights<float>();
  for (int k = 0; k < kSsimWindow; ++k) p.window[k] = win[static_cast<std::size_t>(k)];
  p.count = static_cast<std::uint32_t>(count);
  p.with_grad = 1;
  p.tiles_x = static_cast<std::uint32_t>((w + 15) / 16);
  const In<float> render = in(frame_.rgb, 0, count), target = in(target_, 0, count);
  if (lambda == 0.f) {
    dispatch<sh::LossL1>(s_, s_.groups_for(count, 256), p, render, target, out(grads_.d_rgb, 0, count),
                         out(abs_diff_, 0, count));
  } else {
    derivs_.resize(d, 3 * count);
    ssim_map_.resize(d, count);
    const std::size_t tiles = std::size_t(p.tiles_x) * static_cast<std::size_t>((h + 15) / 16);
    const Groups g = s_.groups_for(tiles * 256, 256);
    dispatch<sh::SsimForward>(s_, g, p, render, target, out(derivs_, 0, 3 * count), out(ssim_map_, 0, count),
                              out(abs_diff_, 0, count));
    dispatch<sh::SsimBackward>(s_, g, p, in(derivs_, 0, 3 * count), render, target, out(grads_.d_rgb, 0, count));
    record_sum(ssim_map_, count, 0);
  }
  record_sum(abs_diff_, count, 1);
  s_.finish();
  // photometric_loss (train/loss.cpp)'s combination of the two means
  const double n = static_cast<double>(count);
  const double l1 = sum_of(1) / n, ssim = lambda != 0.f ? sum_of(0) / n : 0.0;
  return (1.0 - lambda) * l1 + lambda * (1.0 - ssim);
}

double VulkanTrainingSession::normal_consistency(float weight, float edge_eps) {
  if (!rendered_ || (frame_.flags & GLINT_AOV_DEPTH) == 0 || (frame_.flags & GLINT_AOV_NORMAL) == 0)
    throw Error("Vulkan training: normal consistency needs a render with depth and normals");
  // on the host (not yet a shader): the render's images down, their gradients up
  const int w = camera_.width, h = camera_.height;
  const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  ImageF normal(w, h, 3), depth(w, h, 1), alpha(w, h, 1);
  s_.download(frame_.normal.buffer(), 0, normal.data.data(), 3 * px * sizeof(float));
  s_.download(frame_.depth.buffer(), 0, depth.data.data(), px * sizeof(float));
  s_.download(frame_.alpha.buffer(), 0, alpha.data.data(), px * sizeof(float));
  s_.finish();
  const NormalConsistency nc = glint::normal_consistency(camera_, normal, depth, alpha, weight, 0.5f, edge_eps);
  grads_.d_normal.resize(*device_, 3 * px);
  grads_.d_depth.resize(*device_, px);
  s_.upload(grads_.d_normal.buffer(), 0, nc.d_normal.data.data(), 3 * px * sizeof(float));
  s_.upload(grads_.d_depth.buffer(), 0, nc.d_depth.data.data(), px * sizeof(float));
  s_.finish();
  nc_grad_ = true;
  return nc.loss;
}

double VulkanTrainingSession::distortion(float weight) {
  if (!rendered_ || (frame_.flags & GLINT_AOV_DISTORTION) == 0)
    throw Error("Vulkan training: the distortion loss needs a render with the distortion");
  const int w = camera_.width, h = camera_.height;
  const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  ImageF dist(w, h, 1);
  s_.download(frame_.distortion.buffer(), 0, dist.data.data(), px * sizeof(float));
  s_.finish();
  const DistortionLoss dl = distortion_loss(dist, weight);
  grads_.d_distortion.resize(*device_, px);
  s_.upload(grads_.d_distortion.buffer(), 0, dl.d_distortion.data.data(), px * sizeof(float));
  s_.finish();
  distortion_grad_ = true;
  return dl.loss;
}

void VulkanTrainingSession::backward() {
  if (!rendered_) throw Error("Vulkan training: backward before render");
  if (settings_.median_depth_only) throw Error("Vulkan training: a median_depth_only render has no backward");
  if (grads_.d_rgb.size() != 3 * static_cast<std::size_t>(camera_.width) * static_cast<std::size_t>(camera_.height))
    throw Error("Vulkan training: backward before photometric_loss");
  grads_.grad_flags = 0;
  if (nc_grad_) grads_.grad_flags |= GLINT_GRAD_NORMAL | GLINT_GRAD_DEPTH;
  if (distortion_grad_) grads_.grad_flags |= GLINT_GRAD_DISTORTION;
  backward_frame(s_, model_, frame_, grads_);
  download_frame_status(s_, frame_);
  s_.finish();
  check_frame_status(*device_, frame_, "blend backward");
}

void VulkanTrainingSession::splat_step(std::uint32_t mode, const SplatStepPush& base) {
  const std::size_t n = model_.n;
  const std::size_t chunk = splat_chunk(*device_);
  const bool stats = mode == kDensifyStats, vis = mode == kVisibility;
  const bool uses_scales = mode == kFlatten || mode == kMcmc;
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t c = std::min(chunk, n - first);
    SplatStepPush p = base;
    p.count = static_cast<std::uint32_t>(c);
    p.slot = mode;
    const auto opt_in = [&](const Array<float>& a, bool on, std::size_t width) {
      return on ? in(a, width * first, width * c) : in(none_f_);
    };
    const auto opt_out = [&](Array<float>& a, bool on, std::size_t width) {
      return on ? out(a, width * first, width * c) : out(none_f_);
    };
    dispatch<sh::SplatStep>(
        s_, s_.groups_for(c, 256), p, (vis || stats) ? in(frame_.radii, first, c) : in(none_i_),
        opt_in(grads_.mean2d, stats, 2), opt_in(model_.log_scales, uses_scales, 3),
        opt_in(model_.opacity, mode == kMcmc, 1), opt_out(visible_, vis, 1), opt_out(grad_accum_, stats, 1),
        opt_out(grad_count_, stats, 1), opt_out(max_radii_, stats, 1), opt_out(grads_.log_scales, uses_scales, 3),
        opt_out(grads_.opacity, mode == kMcmc, 1), opt_out(terms_, uses_scales, 1),
        opt_out(terms2_, mode == kMcmc, 1));
  }
}

double VulkanTrainingSession::flatten(float weight) {
  const std::size_t n = model_.n;
  if (n == 0 || weight == 0) return 0;
  if (grads_.log_scales.size() != 3 * n) throw Error("Vulkan training: flatten before backward");
  const double scale = weight / static_cast<double>(n);
  terms_.resize(*device_, n);
  SplatStepPush p{};
  p.scale = static_cast<float>(scale);
  splat_step(kFlatten, p);
  record_sum(terms_, n, 0);
  s_.finish();
  return scale * sum_of(0);
}

std::size_t VulkanTrainingSession::visibility() {
  const std::size_t n = model_.n;
  visible_.resize(*device_, n);
  if (n == 0) return 0;
  splat_step(kVisibility, SplatStepPush{});
  record_sum(visible_, n, 0);
  s_.finish();
  return static_cast<std::size_t>(sum_of(0));
}

void VulkanTrainingSession::clear_status() { s_.fill(status_.buffer(), 0, kStatus * 4, 0); }

std::array<std::uint32_t, kStatus> VulkanTrainingSession::read_status() {
  s_.download(status_.buffer(), 0, status_host_.data(), kStatus * 4);
  s_.finish();
  return status_host_;
}

int VulkanTrainingSession::adam(const GroupRates& rates, bool selective, int sh_degree) {
  const std::size_t n = model_.n;
  const AdamOptions& o = host_.adam.options();
  const int deg = std::clamp(sh_degree, 0, kMaxShDegree);
  if (selective && visible_.size() != n) throw Error("Vulkan training: selective adam before visibility");
  host_current_ = false;
  clear_status();
  const std::size_t chunk = splat_chunk(*device_);
  for (int g = 0; g < kNumParamGroups; ++g) {
    const auto gi = static_cast<std::size_t>(g);
    AdamMoments& mom = host_.adam.groups()[gi];
    // train/adam.cpp's prepare(): the group's step advances, its bias corrections in double
    mom.step += 1;
    const double t = static_cast<double>(mom.step);
    AdamPush p{};
    p.b1 = o.beta1;
    p.a1 = 1.f - o.beta1;
    p.b2 = o.beta2;
    p.a2 = 1.f - o.beta2;
    p.bc2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(o.beta2), t)));
    p.eps = o.eps;
    p.step_size = static_cast<float>(rates[gi] / (1.0 - std::pow(static_cast<double>(o.beta1), t)));
    const auto width = static_cast<std::uint32_t>(kParamGroupWidths[gi]);
    p.width = width;
    p.used_width = g == kShRest ? static_cast<std::uint32_t>(3 * ((deg + 1) * (deg + 1) - 1)) : width;
    p.selective = selective ? 1u : 0u;
    p.group = static_cast<std::uint32_t>(g);
    if (grad(g).size() != n * width) throw Error("Vulkan training: adam before backward");
    for (std::size_t first = 0; first < n; first += chunk) {
      const std::size_t c = std::min(chunk, n - first);
      p.count = static_cast<std::uint32_t>(c * width);
      const std::size_t at = first * width, len = c * width;
      dispatch<sh::AdamStep>(s_, s_.groups_for(len, 256), p, out(param(g), at, len), in(grad(g), at, len),
                             out(m_[gi], at, len), out(v_[gi], at, len),
                             selective ? in(visible_, first, c) : in(none_f_), out(status_));
    }
  }
  const auto bad = read_status();
  for (int g = 0; g < kNumParamGroups; ++g)
    if (bad[static_cast<std::size_t>(g)] != 0) return g;
  return -1;
}

void VulkanTrainingSession::accumulate_densify_stats(long step, const DensifyOptions& o) {
  if (step >= o.densify_until || model_.n == 0) return;
  if (grads_.mean2d.size() != 2 * model_.n) throw Error("Vulkan training: densification statistics before backward");
  host_current_ = false;
  SplatStepPush p{};
  const auto [sx, sy] = densify_grad_scale(camera_, setup_.dataset->train[view_]);
  p.sx = sx;
  p.sy = sy;
  splat_step(kDensifyStats, p);
  s_.finish();
}

DensifyReport VulkanTrainingSession::densify(long step, double extent, const DensifyOptions& o, Rng& rng) {
  // the steps densify_step (train/densify.cpp) acts on; every other step leaves the set alone
  const bool acts = step < o.densify_until &&
                    ((step > o.densify_from && o.densify_every > 0 && step % o.densify_every == 0) ||
                     (o.opacity_reset_every > 0 && step % o.opacity_reset_every == 0) ||
                     (o.white_background && step == o.densify_from));
  if (!acts) return {};
  return on_host([&](SplatSet& s) { return densify_step(s, step, extent, o, rng); });
}

double VulkanTrainingSession::mcmc_regularizer(const McmcOptions& o) {
  const std::size_t n = model_.n;
  if (n == 0) return 0.0;
  if (grads_.opacity.size() != n) throw Error("Vulkan training: the MCMC regulariser before backward");
  terms_.resize(*device_, n);
  terms2_.resize(*device_, n);
  SplatStepPush p{};
  p.scale = o.opacity_reg / static_cast<float>(n);
  p.scale2 = o.scale_reg / static_cast<float>(3 * n);
  splat_step(kMcmc, p);
  record_sum(terms_, n, 0);
  record_sum(terms2_, n, 1);
  s_.finish();
  return o.opacity_reg * sum_of(0) / static_cast<double>(n) + o.scale_reg * sum_of(1) / static_cast<double>(3 * n);
}

void VulkanTrainingSession::mcmc_noise(float means_lr, const McmcOptions& o, Rng& rng) {
  on_host([&](SplatSet& s) {
    mcmc_add_noise(s, means_lr, o, rng);
    return 0;
  });
}

McmcReport VulkanTrainingSession::mcmc_refine(long step, const McmcOptions& o, Rng& rng) {
  // the steps mcmc_step (train/mcmc.cpp) acts on
  if (!(step < o.refine_until && step > o.refine_from && o.refine_every > 0 && step % o.refine_every == 0)) return {};
  return on_host([&](SplatSet& s) { return mcmc_step(s, step, o, rng); });
}

int VulkanTrainingSession::first_non_finite_group(bool all) {
  // Adam flagged every value it wrote; the rest are as the last check left them unless
  // something else changed the set.
  if (!all && checked_) return -1;
  clear_status();
  for (int g = 0; g < kNumParamGroups; ++g) {
    Array<float>& a = param(g);
    const std::size_t width = static_cast<std::size_t>(kParamGroupWidths[static_cast<std::size_t>(g)]);
    const std::size_t chunk = splat_chunk(*device_) * width;
    for (std::size_t first = 0; first < a.size(); first += chunk) {
      const std::size_t c = std::min(chunk, a.size() - first);
      SplatStepPush p{};
      p.count = static_cast<std::uint32_t>(c);
      p.slot = static_cast<std::uint32_t>(g);
      dispatch<sh::NonFinite>(s_, s_.groups_for(c, 256), p, in(a, first, c), out(status_));
    }
  }
  const auto bad = read_status();
  for (int g = 0; g < kNumParamGroups; ++g)
    if (bad[static_cast<std::size_t>(g)] != 0) return g;
  checked_ = true;
  return -1;
}

}  // namespace

std::unique_ptr<TrainingSession> make_device_training_session(std::shared_ptr<Device> device,
                                                              const TrainingSetup& setup, SplatSet initial) {
  return std::make_unique<VulkanTrainingSession>(std::move(device), setup, std::move(initial));
}

std::size_t model_round_trips(const TrainingSession& session) {
  const auto* s = dynamic_cast<const VulkanTrainingSession*>(&session);
  if (!s) throw Error("model_round_trips: not a Vulkan device training session");
  return s->round_trips();
}

}  // namespace glint::vk
