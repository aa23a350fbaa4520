#pragma once
// Diffuse relighting of one view, pixel by pixel, with the model the relight dataset was
// rendered with (datasets/relight/README.md, docs/LIGHTING.md), all in linear colour:
//   L_c = albedo_c * ambient_c * AO  +  sum_l albedo_c * colour_lc * E_l * V_l / pi
// Background pixels need no special case: a zero normal receives no irradiance.
#include <vector>

#include "glint/core/image.h"
#include "glint/light/geometry.h"
#include "glint/light/lights.h"

namespace glint {

struct ShadeInputs {
  const ImageF* albedo = nullptr;    // [H,W,3] linear
  const ImageF* normal = nullptr;    // [H,W,3] world space, unit (zero = no surface)
  const ImageF* position = nullptr;  // [H,W,3] world space
  // Per light of the setup, [H,W,1] visibility in [0,1] (1 = lit). Empty: every light
  // visible; otherwise one image per light, where a null pointer means "visible".
  std::vector<const ImageF*> visibility;
  const ImageF* ao = nullptr;  // [H,W,1] ambient occlusion; null = 1
  // [H,W,3] linear image that replaces albedo*AO in the ambient term. The capture of a
  // scene lit by a white world of strength 1 is exactly albedo*AO, so passing it keeps
  // the occlusion the capture already contains without estimating AO.
  const ImageF* ambient_albedo = nullptr;
  // [H,W,3] further irradiance [W/m^2] per channel, visibility included (an environment
  // map's residual, environment_light.h), reflected as albedo_c * E_c / pi.
  const ImageF* irradiance = nullptr;
};

// [H,W,3] linear radiance. Throws glint::Error when the images disagree in size or
// channel count, the visibility list does not match the setup's lights, or the setup still
// holds an environment light (expand_environment_lights() first).
ImageF shade(const LightSetup& setup, const ShadeInputs& in);

// Adds one light's irradiance to `E` ([H,W,3], made at zero when empty), pixel by pixel:
// colour * E_l(x, n) * V, V from `visibility` ([H,W,1]; null: visible), nothing where the
// normal is zero. What shade() reflects of a light it also reflects of this term passed
// as ShadeInputs::irradiance, so that many lights (an environment's suns) need one image
// in all instead of one visibility image each.
void add_irradiance(const Light& light, const ImageF* visibility, const ImageF& position, const ImageF& normal,
                    ImageF& E);

}  // namespace glint
