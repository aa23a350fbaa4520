// Stage compose: the colour over the background and alpha of one band of tile rows
// (compose_rows of the frame's build, which says why it is a pass of its own). blend runs
// it as each band completes; a GPU would run it as one kernel after the blend.
#include <algorithm>

#include "glint/backend/cpu/stages/stages.h"
#include "glint/render/tile.h"

namespace glint::cpu::stage {

void compose(const CpuForwardState& st, const TileForwardArgs& fa, int band) {
  const int TS = render::kTileSize;
  st.kernels->compose_rows(fa, band * TS, std::min(st.height, (band + 1) * TS));
}

}  // namespace glint::cpu::stage
