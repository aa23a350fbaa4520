#pragma once
// The rasterizer as the rest of Glint sees it: one forward and one backward pass for one
// camera. Trainer, evaluation, rendering, lighting and the viewer all call this interface;
// a backend (CPU here, CUDA later) launches the per-element math of src/glint/render/.
// Conventions: docs/RASTERIZER.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glint/core/camera.h"
#include "glint/core/gaussians.h"
#include "glint/backend/render_outputs.h"
#include "glint/core/image.h"

namespace glint {

struct RenderSettings {
  float background[3] = {0.f, 0.f, 0.f};  // composited under the RGB (not under other outputs)
  // The colour (RenderOutput::rgb). Off, rgb is left empty: maps that read only a depth
  // skip composing it, and its memory.
  bool want_rgb = true;
  int sh_degree = -1;                     // active SH degree; -1: the model's sh_degree
  // want_alpha, want_depth, ...: one flag per row of backend/render_outputs.h
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) bool want_##name = on;
  GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  // Mip-Splatting 2D filter opacity compensation. Every backend also applies it to a model
  // marked GaussianModel::antialiased (trained with it), whatever this says.
  bool antialiased = false;
  // Backward: also fill ModelGrad::mean2d_abs (AbsGS's densification statistic). Off, it is
  // left empty: its per-pixel absolute values are a noticeable part of the backward, and
  // Glint's densification does not read them.
  bool want_mean2d_abs = false;
  float near_plane = 0.01f;               // splats with view z below this are culled
  // Keep what only a backward pass needs (where each tile-list entry's gradient record
  // goes). Renders that will not be differentiated set it to false: their forward skips
  // that bookkeeping (half the binning's scattered writes), and a backward after such a
  // forward still works, doing the bookkeeping itself (slower than keeping it).
  bool for_backward = true;
  // Only median_depth will be read (shadow and occlusion maps): a backend may stop blending
  // a pixel once its median is found, which leaves colour, alpha and the other outputs
  // partial. Such a forward cannot be differentiated.
  bool median_depth_only = false;
};

// What a backward needs from its forward. Each backend derives its own state from this
// and recognises it again in backward; a state of another backend is an error there.
class ForwardState {
 public:
  virtual ~ForwardState() = default;
};

struct RenderOutput {
  ImageF rgb;  // [H,W,3] colour over the background; empty unless want_rgb
  // alpha, depth, ...: one image per row of backend/render_outputs.h, [H,W,channels];
  // empty unless its want_ flag was set
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) ImageF name;
  GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  // Per splat: 0 when culled for this camera, else the half extent of its screen-space
  // footprint in pixels (rounded up). The trainer uses radii > 0 as "visible".
  std::vector<int> radii;
  std::int64_t num_visible = 0;    // splats that survived projection and culling
  std::int64_t num_instances = 0;  // (tile, splat) pairs blended
  std::shared_ptr<const ForwardState> saved;  // opaque; used by backward
};

// Upstream gradients, pointers to [H,W,C] arrays laid out like the outputs; null = zero.
// A gradient for an output that forward did not produce is an error.
struct RenderGradIn {
  const float* d_rgb = nullptr;
  // d_alpha, d_depth, ...: one per row of backend/render_outputs.h that has a gradient
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) \
  GLINT_RENDER_OUTPUT_IF_##gradient(const float* d_##name = nullptr;)
  GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
};

// The table's rows by number, for code that treats every output alike (allocation, checks,
// argument blocks). grad_of is null for an output without a gradient.
inline bool wants(const RenderSettings& s, aov::Id id) {
  switch (id) {
#define GLINT_X(name, ...) \
  case aov::name:          \
    return s.want_##name;
    GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  }
  return false;
}
inline void set_want(RenderSettings& s, aov::Id id, bool on) {
  switch (id) {
#define GLINT_X(name, ...) \
  case aov::name:          \
    s.want_##name = on;    \
    return;
    GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  }
}
inline ImageF& image_of(RenderOutput& o, aov::Id id) {
  switch (id) {
#define GLINT_X(name, ...) \
  case aov::name:          \
    return o.name;
    GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  }
  return o.rgb;  // unreachable: every Id has a case
}
inline const ImageF& image_of(const RenderOutput& o, aov::Id id) { return image_of(const_cast<RenderOutput&>(o), id); }
inline const float* grad_of(const RenderGradIn& g, aov::Id id) {
  switch (id) {
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) \
  case aov::name:                                                         \
    GLINT_RENDER_OUTPUT_IF_##gradient(return g.d_##name;) return nullptr;
    GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  }
  return nullptr;
}
// Sets d_NAME of an output with a gradient; false (and nothing set) for one without.
inline bool set_grad(RenderGradIn& g, aov::Id id, const float* d) {
  switch (id) {
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) \
  case aov::name:                                                         \
    GLINT_RENDER_OUTPUT_IF_##gradient(g.d_##name = d; return true;) return false;
    GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
  }
  return false;
}

// Gradients of the loss, same layout as GaussianModel. Backward resizes and overwrites.
struct ModelGrad {
  std::vector<float> means, log_scales, quats, opacity_logits, sh_dc, sh_rest;
  std::vector<float> mean2d;      // [N,2] dL/d(2D mean) in pixels (densification)
  std::vector<float> mean2d_abs;  // [N] |(sum_px |dL/dmx|, sum_px |dL/dmy|)| (AbsGS); empty
                                  // unless RenderSettings::want_mean2d_abs
  // How many floats at the start of each splat's sh_rest row may be non-zero: the rest of
  // every row holds zeros. A backward writes the first max(this, its SH degree's) floats
  // of each row and then sets it to its degree's, so below degree 3 it does not store the
  // same zeros again every step (45 a splat at degree 0, training's first thousand steps).
  // Code that writes sh_rest by other means sets it back to 3 * kShRestCoeffs.
  int sh_rest_live = 3 * kShRestCoeffs;
  void resize(std::size_t n, bool with_mean2d_abs = true);
};

class TrainingSession;
struct TrainingSetup;
struct SplatSet;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  // What it runs on, for reports (eval.json): the CPU's model, kernel build and threads,
  // or the GPU's name.
  virtual std::string device() const { return name(); }
  // The most memory of its own device the backend has held so far, in bytes; -1 for a
  // backend without memory of its own (the CPU's is the process's, peak_rss_mb).
  virtual long long peak_device_memory_bytes() const { return -1; }
  // The device's own clock over the last forward_into's and the last backward's stages, in
  // milliseconds (the CUDA backend: events around its kernels, the uploads before and the
  // downloads after left out); negative for a call that was not timed so, and always for a
  // backend without a device of its own, whose calls' wall time is all compute. For
  // benchmarks: read after the call, before the next one.
  struct StageTimes {
    double forward_ms = -1, backward_ms = -1;
  };
  virtual StageTimes last_stage_times() const { return {}; }
  // Renders `camera`: the same as forward_into into a fresh RenderOutput.
  RenderOutput forward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings) {
    RenderOutput out;
    forward_into(model, camera, settings, out);
    return out;
  }
  // Renders into `out`, reusing its images where their sizes fit, for callers that render
  // frame after frame (training, glint render): the images are then neither allocated nor
  // cleared again (clearing them is a visible cost of a large frame).
  // Releases out's previous forward state first. After an exception out is unspecified.
  virtual void forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                            RenderOutput& out) = 0;
  // Renders each of `cameras` into outs[i] (outs resized to match), for images that are
  // looked at, not differentiated: the outputs keep no forward state. Many small views
  // (shadow and occlusion maps) render faster this way on a backend that can render views
  // side by side; this default renders them in turn.
  virtual void forward_views(const GaussianModel& model, const std::vector<Camera>& cameras,
                             const RenderSettings& settings, std::vector<RenderOutput>& outs) {
    outs.resize(cameras.size());
    for (std::size_t i = 0; i < cameras.size(); ++i) {
      forward_into(model, cameras[i], settings, outs[i]);
      outs[i].saved.reset();
    }
  }
  // `out` must be what forward returned for the same model, camera and settings.
  virtual void backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                        const RenderOutput& out, const RenderGradIn& grad_in, ModelGrad& grad) = 0;
  // A training run's state on this backend (backend/training_session.h), starting from
  // `initial`. The setup's dataset and images must outlive the session.
  virtual std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) = 0;
};

// threads <= 0: OpenMP's default (OMP_NUM_THREADS or the number of cores).
std::unique_ptr<Backend> make_cpu_backend(int threads = 0);

// Build of the CPU kernels. kAuto picks the best the CPU runs: AVX-512 (x86-64-v4), else
// AVX2+FMA, else portable; the environment variable GLINT_CPU_SIMD=portable|avx2|avx512
// caps it. A request the CPU cannot run falls back to the next build down.
enum class CpuSimd { kAuto, kPortable, kAvx2, kAvx512 };
void set_cpu_simd(CpuSimd mode);     // process-wide
CpuSimd active_cpu_simd();           // the build forward/backward will take now
const char* cpu_simd_name(CpuSimd);  // "portable", "avx2", "avx512" (or "auto")

}  // namespace glint
