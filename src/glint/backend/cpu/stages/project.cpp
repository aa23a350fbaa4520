// Stage project: the per-splat projection kernel of the frame's build over the model.
#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {

void project(CpuForwardState& st, const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
             int* radii, int threads) {
  st.packed.resize(st.n);
  std::uint32_t* count = grow(st.count, st.n);
  std::uint32_t* depth_key = grow(st.depth_key, st.n);
  TileHitMask* tile_mask = grow(st.tile_mask, st.n);
  st.sh_clamped.resize(st.n);
  ProjectArgs pa{};
  pa.m = splat_arrays(model);
  pa.camera = &camera;
  pa.near_plane = settings.near_plane;
  pa.sh_degree = st.sh_degree;
  pa.antialiased = settings.antialiased;
  pa.normals = settings.want_normal;
  pa.packed = st.packed.data();
  pa.radii = radii;
  pa.count = count;
  pa.depth_key = depth_key;
  pa.tile_mask = tile_mask;
  pa.sh_clamped = st.sh_clamped.data();
  st.kernels->project_splats(pa, threads);
}

}  // namespace glint::cpu::stage
