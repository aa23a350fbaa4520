#pragma once
// Pixels on a silhouette that the splats cover only in part (0 < alpha < the relighter's
// surface threshold) carry no geometry of their own: their blended depth mixes the surface
// with what lies behind it. Yet the image shows that surface there, at partial coverage,
// and left without geometry they would be lit by the ambient term alone: a dark fringe
// around every object. Each such pixel takes the geometry of the most covered surface
// pixel near it.
#include "glint/core/image.h"

namespace glint {

struct FringeFillParams {
  int radius_px = 1;              // the square window searched, (2r+1)^2 pixels
  float min_alpha = 1.f / 255.f;  // pixels covered less than this stay empty
};

// Surface pixels have depth > 0 and a non-zero normal. Every other pixel with alpha >=
// min_alpha takes depth, position and normal of the surface pixel of highest alpha within
// the window (ties: the nearest, then the first in row order), when there is one. Sources
// are always original surface pixels, never filled ones. Returns how many were filled.
long fill_fringe_geometry(const ImageF& alpha, ImageF& depth, ImageF& position, ImageF& normal,
                          const FringeFillParams& params = {});

}  // namespace glint
