#pragma once
// The render outputs ("AOVs") `glint render --aov` writes: a PNG to look at and, for the
// data outputs, the float values as PFM.
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/light/depth_filter.h"

namespace glint::cli {

// What `glint render --aov` was asked for: the colour, any row of the render-output table
// (backend/render_outputs.h), and depth_normal, normals of the bilateral-filtered depth
// (light/depth_filter.h), which is derived from depth and alpha after the render.
struct AovSet {
  bool rgb = false;
  bool output[aov::kCount] = {};
  bool depth_normal = false;
};

// Every name --aov accepts: rgb, the table's outputs in its order, depth_normal.
std::vector<std::string> aov_names();

// Unknown names are ignored (the command line checks them against aov_names()).
AovSet parse_aovs(const std::vector<std::string>& names);

// The render settings' output flags for the set (what it shows, and what depth_normal
// needs); every other setting is left as it is.
void set_wanted_outputs(const AovSet& aov, RenderSettings& settings);

// File names (inside the output folder) written for one camera.
std::vector<std::string> aov_files(const AovSet& aov, const std::string& stem);

void write_aovs(const AovSet& aov, const std::string& dir, const std::string& stem, const Camera& camera,
                const RenderOutput& out, const DepthFilterParams& filter);

}  // namespace glint::cli
