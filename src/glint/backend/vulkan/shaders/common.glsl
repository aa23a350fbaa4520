// Included first by every shader: the shared structs and the render/ math.
#ifndef GLINT_COMMON_GLSL
#define GLINT_COMMON_GLSL
#include "shared_types.h"
#include "render_math.glsl"

// A 1D index over a dispatch that may be 2D (groups_for: past maxComputeWorkGroupCount.x
// the groups wrap into y).
uint linear_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}


// The 16x16 tiles a projected splat's cut ellipse can reach, in row-major order (the test
// the CPU backend's tile lists and the CUDA project kernel use).
uint count_hit_tiles(ProjectedSplat s, int width, int height) {
  ivec4 pr = splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
  if (pr.x > pr.z || pr.y > pr.w) return 0u;
  RectTestPrep prep = rect_test_prep(s.conic[0], s.conic[1], s.conic[2], s.power_cut);
  uint hits = 0u;
  for (int ty = pr.y / kTileSize; ty <= pr.w / kTileSize; ++ty) {
    float py0, py1;
    tile_centre_span(ty, pr.y, pr.w, py0, py1);
    for (int tx = pr.x / kTileSize; tx <= pr.z / kTileSize; ++tx) {
      float px0, px1;
      tile_centre_span(tx, pr.x, pr.z, px0, px1);
      if (ellipse_hits_rect(prep, s.mx, s.my, px0, px1, py0, py1)) hits++;
    }
  }
  return hits;
}
#endif
