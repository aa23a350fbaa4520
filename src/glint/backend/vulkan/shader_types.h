#pragma once
// The structs of shaders/shared_types.h on the C++ side: the same text, included here inside
// a namespace where `uint` is a 32-bit unsigned integer, every size and offset pinned by
// static_asserts, and a field table per struct that the pipelines' reflection check compares
// with what the SPIR-V declares (program.h).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "glint/backend/render_outputs.h"
#include "glint/backend/vulkan/program.h"
#include "glint/render/view.h"

namespace glint::vk::shader {
using uint = std::uint32_t;
#include "glint/backend/vulkan/shaders/shared_types.h"

}  // namespace glint::vk::shader

namespace glint::vk {

using shader::AdamPush;
using shader::BlendPush;
using shader::LossPush;
using shader::SplatStepPush;
using shader::SumPush;
using shader::NoisePush;
using shader::TargetPush;
using shader::CountPush;
using shader::MathCheckPush;
using shader::NcPush;
using shader::ProjectedSplat;
using shader::ProjectPush;
using shader::SplatBackwardPush;
using shader::TileKeysPush;
using shader::ViewParams;

static_assert(sizeof(ViewParams) == 104 && sizeof(ViewParams) == sizeof(render::ViewT<float>));
static_assert(offsetof(ViewParams, t) == offsetof(render::ViewT<float>, t));
static_assert(offsetof(ViewParams, campos) == offsetof(render::ViewT<float>, campos));
static_assert(offsetof(ViewParams, fx) == offsetof(render::ViewT<float>, fx));
static_assert(offsetof(ViewParams, lim_x_neg) == offsetof(render::ViewT<float>, lim_x_neg));
static_assert(offsetof(ViewParams, near_plane) == offsetof(render::ViewT<float>, near_plane));
static_assert(offsetof(ViewParams, width) == offsetof(render::ViewT<float>, width));
static_assert(offsetof(ViewParams, height) == offsetof(render::ViewT<float>, height));
static_assert(sizeof(ProjectedSplat) == 80);
static_assert(offsetof(ProjectedSplat, conic) == 8 && offsetof(ProjectedSplat, depth) == 20);
static_assert(offsetof(ProjectedSplat, ext_x) == 32 && offsetof(ProjectedSplat, tiles) == 40);
static_assert(offsetof(ProjectedSplat, radius) == 44 && offsetof(ProjectedSplat, rgb) == 48);
static_assert(offsetof(ProjectedSplat, normal) == 60);
static_assert(sizeof(ProjectPush) == 120 && sizeof(SplatBackwardPush) == 124 && sizeof(BlendPush) == 48);
static_assert(sizeof(TileKeysPush) == 16 && sizeof(CountPush) == 16 && sizeof(MathCheckPush) == 16);
static_assert(sizeof(TargetPush) == 32 && sizeof(LossPush) == 92 && sizeof(SumPush) == 16);
static_assert(sizeof(AdamPush) == 48 && sizeof(SplatStepPush) == 32 && sizeof(NoisePush) == 16);
static_assert(sizeof(NcPush) == 80 && offsetof(NcPush, fx) == 36 && offsetof(NcPush, scale) == 72);

// The blend outputs' bits in the shaders (shared_types.h) are the CPU kernels' (aov::kernel_flag).
static_assert(GLINT_AOV_DEPTH == aov::kernel_flag(aov::depth));
static_assert(GLINT_AOV_MEDIAN == aov::kernel_flag(aov::median_depth));
static_assert(GLINT_AOV_NORMAL == aov::kernel_flag(aov::normal));
static_assert(GLINT_AOV_DISTORTION == aov::kernel_flag(aov::distortion));
static_assert(GLINT_AOV_COUNT == aov::kernel_flag(aov::count));

inline ViewParams view_params(const render::ViewT<float>& v) {
  ViewParams p;
  static_assert(std::is_trivially_copyable_v<render::ViewT<float>>);
  std::memcpy(&p, &v, sizeof p);
  return p;
}

// How the reflection check sees a C++ struct: its name in the shader, size and fields.
template <class T>
struct Layout;

#define GLINT_VK_FIELD(S, m) Field{#m, static_cast<std::uint32_t>(offsetof(S, m)), sizeof(S::m)}
#define GLINT_VK_LAYOUT(S, ...)                                                          \
  template <>                                                                            \
  struct Layout<S> {                                                                     \
    static constexpr Field kFields[] = {__VA_ARGS__};                                    \
    static StructLayout get() { return {#S, static_cast<std::uint32_t>(sizeof(S)), kFields}; } \
  };

GLINT_VK_LAYOUT(ProjectedSplat, GLINT_VK_FIELD(ProjectedSplat, mx), GLINT_VK_FIELD(ProjectedSplat, my),
                GLINT_VK_FIELD(ProjectedSplat, conic), GLINT_VK_FIELD(ProjectedSplat, depth),
                GLINT_VK_FIELD(ProjectedSplat, opacity), GLINT_VK_FIELD(ProjectedSplat, power_cut),
                GLINT_VK_FIELD(ProjectedSplat, ext_x), GLINT_VK_FIELD(ProjectedSplat, ext_y),
                GLINT_VK_FIELD(ProjectedSplat, tiles), GLINT_VK_FIELD(ProjectedSplat, radius),
                GLINT_VK_FIELD(ProjectedSplat, rgb), GLINT_VK_FIELD(ProjectedSplat, normal),
                GLINT_VK_FIELD(ProjectedSplat, pad))
GLINT_VK_LAYOUT(ProjectPush, GLINT_VK_FIELD(ProjectPush, view), GLINT_VK_FIELD(ProjectPush, first),
                GLINT_VK_FIELD(ProjectPush, count), GLINT_VK_FIELD(ProjectPush, sh_degree),
                GLINT_VK_FIELD(ProjectPush, antialiased))
GLINT_VK_LAYOUT(TileKeysPush, GLINT_VK_FIELD(TileKeysPush, first), GLINT_VK_FIELD(TileKeysPush, count),
                GLINT_VK_FIELD(TileKeysPush, width), GLINT_VK_FIELD(TileKeysPush, height))
GLINT_VK_LAYOUT(CountPush, GLINT_VK_FIELD(CountPush, count), GLINT_VK_FIELD(CountPush, shift),
                GLINT_VK_FIELD(CountPush, blocks), GLINT_VK_FIELD(CountPush, pad))
GLINT_VK_LAYOUT(BlendPush, GLINT_VK_FIELD(BlendPush, width), GLINT_VK_FIELD(BlendPush, height),
                GLINT_VK_FIELD(BlendPush, tiles_x), GLINT_VK_FIELD(BlendPush, flags),
                GLINT_VK_FIELD(BlendPush, background), GLINT_VK_FIELD(BlendPush, stop_at_median),
                GLINT_VK_FIELD(BlendPush, grad_flags), GLINT_VK_FIELD(BlendPush, record_floats),
                GLINT_VK_FIELD(BlendPush, pad))
GLINT_VK_LAYOUT(SplatBackwardPush, GLINT_VK_FIELD(SplatBackwardPush, view), GLINT_VK_FIELD(SplatBackwardPush, first),
                GLINT_VK_FIELD(SplatBackwardPush, count), GLINT_VK_FIELD(SplatBackwardPush, sh_degree),
                GLINT_VK_FIELD(SplatBackwardPush, antialiased), GLINT_VK_FIELD(SplatBackwardPush, record_floats))
GLINT_VK_LAYOUT(MathCheckPush, GLINT_VK_FIELD(MathCheckPush, count), GLINT_VK_FIELD(MathCheckPush, function),
                GLINT_VK_FIELD(MathCheckPush, in_stride), GLINT_VK_FIELD(MathCheckPush, out_stride))


GLINT_VK_LAYOUT(TargetPush, GLINT_VK_FIELD(TargetPush, width), GLINT_VK_FIELD(TargetPush, height), GLINT_VK_FIELD(TargetPush, channels), GLINT_VK_FIELD(TargetPush, count), GLINT_VK_FIELD(TargetPush, background), GLINT_VK_FIELD(TargetPush, pad))
GLINT_VK_LAYOUT(LossPush, GLINT_VK_FIELD(LossPush, width), GLINT_VK_FIELD(LossPush, height), GLINT_VK_FIELD(LossPush, channels), GLINT_VK_FIELD(LossPush, l1_scale), GLINT_VK_FIELD(LossPush, lambda), GLINT_VK_FIELD(LossPush, inv_count), GLINT_VK_FIELD(LossPush, c1), GLINT_VK_FIELD(LossPush, c2), GLINT_VK_FIELD(LossPush, window), GLINT_VK_FIELD(LossPush, count), GLINT_VK_FIELD(LossPush, with_grad), GLINT_VK_FIELD(LossPush, tiles_x), GLINT_VK_FIELD(LossPush, weighted))
GLINT_VK_LAYOUT(NoisePush, GLINT_VK_FIELD(NoisePush, count), GLINT_VK_FIELD(NoisePush, scale), GLINT_VK_FIELD(NoisePush, k), GLINT_VK_FIELD(NoisePush, t))
GLINT_VK_LAYOUT(SumPush, GLINT_VK_FIELD(SumPush, count), GLINT_VK_FIELD(SumPush, pad))
GLINT_VK_LAYOUT(AdamPush, GLINT_VK_FIELD(AdamPush, b1), GLINT_VK_FIELD(AdamPush, a1), GLINT_VK_FIELD(AdamPush, b2), GLINT_VK_FIELD(AdamPush, a2), GLINT_VK_FIELD(AdamPush, bc2_sqrt), GLINT_VK_FIELD(AdamPush, eps), GLINT_VK_FIELD(AdamPush, step_size), GLINT_VK_FIELD(AdamPush, count), GLINT_VK_FIELD(AdamPush, width), GLINT_VK_FIELD(AdamPush, used_width), GLINT_VK_FIELD(AdamPush, selective), GLINT_VK_FIELD(AdamPush, group))
GLINT_VK_LAYOUT(NcPush, GLINT_VK_FIELD(NcPush, R), GLINT_VK_FIELD(NcPush, fx), GLINT_VK_FIELD(NcPush, fy),
                GLINT_VK_FIELD(NcPush, cx), GLINT_VK_FIELD(NcPush, cy), GLINT_VK_FIELD(NcPush, width),
                GLINT_VK_FIELD(NcPush, height), GLINT_VK_FIELD(NcPush, count), GLINT_VK_FIELD(NcPush, alpha_threshold),
                GLINT_VK_FIELD(NcPush, edge_eps), GLINT_VK_FIELD(NcPush, scale), GLINT_VK_FIELD(NcPush, pad))
GLINT_VK_LAYOUT(SplatStepPush, GLINT_VK_FIELD(SplatStepPush, count), GLINT_VK_FIELD(SplatStepPush, sx), GLINT_VK_FIELD(SplatStepPush, sy), GLINT_VK_FIELD(SplatStepPush, scale), GLINT_VK_FIELD(SplatStepPush, scale2), GLINT_VK_FIELD(SplatStepPush, slot), GLINT_VK_FIELD(SplatStepPush, pad))

}  // namespace glint::vk
