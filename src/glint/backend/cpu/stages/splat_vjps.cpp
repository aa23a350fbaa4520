// Stage splat_vjps: every splat sums its records in tile order (they are contiguous,
// splat-major), then runs the projection and SH VJPs, by the forward's kernel build.
#include <algorithm>

#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {

void splat_vjps(const CpuForwardState& st, const GaussianModel& model, const Camera& camera, const float* records,
                ModelGrad& grad, int threads) {
  VjpArgs va{};
  va.m = splat_arrays(model);
  va.camera = &camera;
  va.near_plane = st.settings.near_plane;
  va.sh_degree = st.sh_degree;
  va.antialiased = st.settings.antialiased;
  va.splat_inst_offsets = st.splat_inst_offsets.data();
  va.sh_clamped = st.sh_clamped.data();
  va.records = records;
  va.packed = st.packed.data();
  va.g = {grad.means.data(),  grad.log_scales.data(), grad.quats.data(),  grad.opacity_logits.data(),
          grad.sh_dc.data(),  grad.sh_rest.data(),    grad.mean2d.data(),
          st.settings.want_mean2d_abs ? grad.mean2d_abs.data() : nullptr};
  const int sh_rest_used = 3 * ((st.sh_degree + 1) * (st.sh_degree + 1) - 1);  // floats of the degree
  va.sh_rest_floats = std::clamp(std::max(sh_rest_used, grad.sh_rest_live), 0, 3 * kShRestCoeffs);
  st.kernels->splat_vjps(va, threads);
  grad.sh_rest_live = sh_rest_used;
}

}  // namespace glint::cpu::stage
