// Stage frame: what every later stage reads of the frame, and the kernel build it runs.
#include <algorithm>

#include "glint/backend/cpu/stages/stages.h"
#include "glint/render/tile.h"

namespace glint::cpu::stage {
namespace {

const CpuKernels& kernels_for(CpuSimd s) {
  return s == CpuSimd::kAvx512 ? avx512::kernels() : s == CpuSimd::kAvx2 ? avx2::kernels() : portable::kernels();
}

}  // namespace

void frame(CpuForwardState& st, const GaussianModel& model, const Camera& camera, const RenderSettings& settings) {
  const int TS = render::kTileSize;
  st.settings = settings;
  st.sh_degree = std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : model.sh_degree, 0, kMaxShDegree);
  st.flags = 0;
  for (int i = 0; i < aov::kCount; ++i)
    if (wants(settings, aov::Id(i))) st.flags |= aov::kernel_flag(aov::Id(i));
  st.n = model.size();
  st.model_means = model.means.data();
  st.width = camera.width;
  st.height = camera.height;
  st.tiles_x = (camera.width + TS - 1) / TS;
  st.tiles_y = (camera.height + TS - 1) / TS;
  st.kernels = &kernels_for(active_cpu_simd());
}

}  // namespace glint::cpu::stage
