#pragma once
// The optional outputs of a render, as one table. Each row generates the output's flag in
// RenderSettings (want_NAME), its image in RenderOutput (NAME), its upstream-gradient slot
// in RenderGradIn (d_NAME, only where it has a gradient), its bit in the CPU tile kernels'
// flags, the per-pixel state a CPU forward keeps for the backward, the checks of gradients
// against what a forward produced, and `glint render --aov NAME` (file names and the PNG
// that shows it). A new output is a row here and its math in the blend kernels
// (backend/cpu/raster_kernels_impl.h); docs/ARCHITECTURE.md walks through it.
// The colour (RenderOutput::rgb, over the background) is always rendered and is not a row.
//
// Columns:
//   name      identifier: members want_NAME, NAME, d_NAME; aov::NAME; the --aov name
//   channels  floats per pixel, interleaved [H,W,C]
//   on        wanted when RenderSettings is default-constructed
//   gradient  grad: a backward takes dL/d(output); nograd: it is not differentiable
//   source    blend: accumulated over the blend steps (the tile kernel has a flag for it);
//             final: a function of the final transmittance, made while composing
//   saved     32-bit words per pixel the CPU forward keeps for its backward, [H,W,saved]
//   look      how `glint render --aov` shows it as a PNG (cli/aov_output.cpp):
//             opacity (as is), depth (near bright), direction (unit vectors as colour),
//             magnitude (0 black, the 99th percentile white)
//   meaning   one line, for help texts and docs
//
// The blend rows with a gradient come first: their kernel bits are then the low bits, and
// the CPU backward's kernel table is indexed by them alone.
#define GLINT_RENDER_OUTPUTS(X)                                                                                  \
  X(alpha, 1, true, grad, final, 0, opacity, "1 - final transmittance")                                          \
  X(depth, 1, false, grad, blend, 1, depth, "expected view-space depth, normalised by alpha; 0 where alpha is 0") \
  X(median_depth, 1, false, grad, blend, 1, depth,                                                               \
    "depth where transmittance first falls below 0.5; 0 where it never does")                                    \
  X(normal, 3, false, grad, blend, 3, direction,                                                                 \
    "sum of w_i n_i in world space, each n_i facing the camera (not normalised)")                                \
  X(distortion, 1, false, grad, blend, 2, magnitude,                                                             \
    "depth distortion: sum over pairs of blended splats of w_i w_j |z_i - z_j|")                                 \
  X(count, 1, false, nograd, blend, 0, magnitude, "number of splats blended into each pixel")

// GLINT_RENDER_OUTPUT_IF_grad(x) is x, GLINT_RENDER_OUTPUT_IF_nograd(x) is nothing: for
// members that only outputs with a gradient have.
#define GLINT_RENDER_OUTPUT_IF_grad(x) x
#define GLINT_RENDER_OUTPUT_IF_nograd(x)

namespace glint {
namespace aov {

enum Id : int {
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) name,
  GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
};
#define GLINT_X(...) +1
inline constexpr int kCount = 0 GLINT_RENDER_OUTPUTS(GLINT_X);
#undef GLINT_X

enum class Look { opacity, depth, direction, magnitude };

struct Info {
  const char* name;
  int channels;
  bool on_by_default;
  bool has_gradient;
  bool from_blend;  // source blend (else final)
  int saved_words;
  Look look;
  const char* meaning;
};

inline constexpr bool kGradient_grad = true, kGradient_nograd = false;
inline constexpr bool kFromBlend_blend = true, kFromBlend_final = false;

inline constexpr Info kInfo[kCount] = {
#define GLINT_X(name, channels, on, gradient, source, saved, look, meaning) \
  {#name, channels, on, kGradient_##gradient, kFromBlend_##source, saved, Look::look, meaning},
    GLINT_RENDER_OUTPUTS(GLINT_X)
#undef GLINT_X
};

inline constexpr const Info& info(Id id) { return kInfo[id]; }

// The output's bit in the CPU tile kernels' flags, 0 for the outputs made while composing:
// the blend rows in table order take bits 0, 1, 2, ...
inline constexpr unsigned kernel_flag(Id id) {
  if (!kInfo[id].from_blend) return 0;
  int bit = 0;
  for (int i = 0; i < id; ++i) bit += kInfo[i].from_blend ? 1 : 0;
  return 1u << bit;
}
inline constexpr unsigned kernel_flags(bool with_gradient_only) {
  unsigned f = 0;
  for (int i = 0; i < kCount; ++i)
    if (!with_gradient_only || kInfo[i].has_gradient) f |= kernel_flag(Id(i));
  return f;
}
// Every kernel bit (the forward's table) and those of outputs with a gradient (the
// backward's); both must be the low bits for the tables to be indexed by them.
inline constexpr unsigned kForwardKernelFlags = kernel_flags(false);
inline constexpr unsigned kBackwardKernelFlags = kernel_flags(true);
static_assert((kForwardKernelFlags & (kForwardKernelFlags + 1)) == 0, "blend outputs take the low kernel bits");
static_assert((kBackwardKernelFlags & (kBackwardKernelFlags + 1)) == 0,
              "the blend outputs with a gradient come before those without (see the table's order)");

}  // namespace aov
}  // namespace glint
