#pragma once
// The light setups glint view was given, as the page reads them: the Glint light-file
// format of docs/LIGHTING.md with one spelling per key (intensity, not power; the spot cone
// in degrees; the sun's direction towards it), after read_lights_json has checked and
// normalised them. A file the page saves in this form reads back in glint relight as the
// same lights.
#include <string>
#include <vector>

#include "glint/light/lights.h"

namespace glint::view {

// {"setups": {name: {"name", "ambient": {...}, "lights": [...]}, ...}} in the setups' order.
// Environment lights are written as the next entry of `environment_json` (JSON objects of
// page_environment.h, in the order the lights occur over all setups), or as
// {"type": "environment"} (not shaded by the page) when it has no entry left.
std::string light_setups_to_json(const std::vector<LightSetup>& setups,
                                 const std::vector<std::string>& environment_json = {});

}  // namespace glint::view
