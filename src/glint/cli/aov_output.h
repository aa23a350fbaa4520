#pragma once
// The render outputs ("AOVs") `glint render --aov` writes: a PNG to look at and, for the
// data outputs, the float values as PFM.
#include <string>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/light/depth_filter.h"

namespace glint::cli {

struct AovSet {
  bool rgb = false, alpha = false, depth = false, median_depth = false, normal = false, depth_normal = false,
       distortion = false;
};

AovSet parse_aovs(const std::vector<std::string>& names);

// File names (inside the output folder) written for one camera.
std::vector<std::string> aov_files(const AovSet& aov, const std::string& stem);

void write_aovs(const AovSet& aov, const std::string& dir, const std::string& stem, const Camera& camera,
                const RenderOutput& out, const DepthFilterParams& filter);

}  // namespace glint::cli
