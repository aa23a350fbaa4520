#version 450
#extension GL_GOOGLE_include_directive : require
// The tile lists' keys over a chunk of splats: every drawn splat writes one 64-bit key
// (tile << 32 | depth bits, as two 32-bit words) per tile its cut ellipse reaches, at its
// offset (the exclusive prefix sum of the tile counts); the sort's value is the key's own
// slot (splat-major), and splat_of_slot remembers whose it is. The tiles are decided again
// here by a separately compiled copy of the project stage's test, which a driver may round
// differently: a splat writes only inside the slots the project stage gave it and fills any
// it leaves with a sentinel key (tile = the number of tiles) that sorts after every real one
// and that the ranges stage skips.
// (the group size first: common.glsl's linear_index reads gl_WorkGroupSize)
layout(local_size_x = 256) in;
#include "common.glsl"
layout(push_constant) uniform PushBlock { TileKeysPush p; };
layout(std430, binding = 0) readonly buffer Splats { ProjectedSplat splats[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 2) writeonly buffer KeyLo { uint key_lo[]; };
layout(std430, binding = 3) writeonly buffer KeyHi { uint key_hi[]; };
layout(std430, binding = 4) writeonly buffer Slots { uint slots[]; };
layout(std430, binding = 5) writeonly buffer SplatOfSlot { uint splat_of_slot[]; };

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  ProjectedSplat s = splats[i];
  if (s.tiles == 0u) return;
  uint depth = floatBitsToUint(s.depth);  // view depth > 0: its bits sort like the floats
  uint k = offsets[i], k_end = offsets[i + 1u];
  ivec4 pr = splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, p.width, p.height);
  int tiles_x = (p.width + kTileSize - 1) / kTileSize;
  RectTestPrep prep = rect_test_prep(s.conic[0], s.conic[1], s.conic[2], s.power_cut);
  for (int ty = pr.y / kTileSize; ty <= pr.w / kTileSize; ++ty) {
    float py0, py1;
    tile_centre_span(ty, pr.y, pr.w, py0, py1);
    for (int tx = pr.x / kTileSize; tx <= pr.z / kTileSize; ++tx) {
      float px0, px1;
      tile_centre_span(tx, pr.x, pr.z, px0, px1);
      if (k < k_end && ellipse_hits_rect(prep, s.mx, s.my, px0, px1, py0, py1)) {
        key_lo[k] = depth;
        key_hi[k] = uint(ty * tiles_x + tx);
        slots[k] = k;
        splat_of_slot[k] = p.first + i;
        k++;
      }
    }
  }
  uint tiles = uint(tiles_x * ((p.height + kTileSize - 1) / kTileSize));
  for (; k < k_end; ++k) {
    key_lo[k] = 0xffffffffu;
    key_hi[k] = tiles;
    slots[k] = k;
    splat_of_slot[k] = p.first + i;
  }
}
