// AVX2+FMA build of the CPU rasterizer kernels, tile and per-splat (compiled with -mavx2
// -mfma on x86-64, see src/CMakeLists.txt); only called after the runtime CPU check in
// cpu_backend.cpp (active_cpu_simd).
#include <array>
#if defined(__x86_64__) || defined(__i386__)
#define GLINT_CPU_ISA avx2
#define GLINT_RENDER_NS avx2
#define GLINT_LANES_NS lanes_avx2
#include "glint/backend/cpu/raster_kernels_impl.h"
#include "glint/backend/cpu/splat_kernels_impl.h"
#else
#include "glint/backend/cpu/raster_tiles.h"
#include "glint/backend/cpu/splat_kernels.h"
namespace glint::cpu::avx2 {  // no AVX2 on this target: the portable kernels stand in
void forward_tile(const TileForwardArgs& a, int tile, unsigned flags) { portable::forward_tile(a, tile, flags); }
void compose_rows(const TileForwardArgs& a, int y0, int y1) { portable::compose_rows(a, y0, y1); }
void backward_tile(const TileBackwardArgs& a, int tile, unsigned flags) { portable::backward_tile(a, tile, flags); }
std::uint64_t tile_hits(const SplatPacked& s, const TileRange& r, int first) { return portable::tile_hits(s, r, first); }
void project_splats(const ProjectArgs& a, int threads) { portable::project_splats(a, threads); }
std::uint32_t large_splat_tiles(const TileListArgs& a, int i, std::uint32_t* out) {
  return portable::large_splat_tiles(a, i, out);
}
void splat_vjps(const VjpArgs& a, int threads) { portable::splat_vjps(a, threads); }
}  // namespace glint::cpu::avx2
#endif
