#version 450
#extension GL_GOOGLE_include_directive : require
// After the sort: each sorted instance's splat, and where each tile's list begins and ends
// in the sorted keys (ranges cleared to 0 before, so an empty tile is [0, 0)); p.blocks is
// the number of tiles, and sentinel keys (tile_keys.comp) name the tile past the last.
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { CountPush p; };
layout(std430, binding = 0) readonly buffer SortedHi { uint sorted_hi[]; };
layout(std430, binding = 1) readonly buffer SortedSlot { uint sorted_slot[]; };
layout(std430, binding = 2) readonly buffer SplatOfSlot { uint splat_of_slot[]; };
layout(std430, binding = 3) writeonly buffer SortedSplat { uint sorted_splat[]; };
layout(std430, binding = 4) writeonly buffer Ranges { uint ranges[]; };

void main() {
  uint i = linear_index();
  uint n = p.count;
  if (i >= n) return;
  sorted_splat[i] = splat_of_slot[sorted_slot[i]];
  uint tile = sorted_hi[i];
  if (tile >= p.blocks) return;
  if (i == 0u || sorted_hi[i - 1u] != tile) ranges[2u * tile] = i;
  if (i + 1u == n || sorted_hi[i + 1u] != tile) ranges[2u * tile + 1u] = i + 1u;
}
