#pragma once
// What COLMAP 3.x prints while it works, read back as progress counts, and the statistics
// `colmap model_analyzer` prints. Pure functions on single lines, so that a change in
// COLMAP's wording shows up in one place and in its tests.
#include <optional>
#include <string>

namespace glint::capture {

struct Count {
  long done = 0, total = 0;
};

// "Processed file [12/67]" (feature_extractor): 12 of 67 images.
std::optional<Count> parse_extracted(const std::string& line);

// "Matching block [2/7, 3/7]" (exhaustive_matcher): block (2,3) of 7 x 7 finished, i.e. 10
// of 49; "Matching image [12/67]" (sequential_matcher): 12 of 67.
std::optional<Count> parse_matched(const std::string& line);

// "Registering image #14 (5)" (mapper): 5 images registered in the model being built.
// "Initializing with image pair #13 and #15": 2.
std::optional<long> parse_registered(const std::string& line);

// "Reconstruction..." lines aside, the mapper starts a new model after a failed one with
// "Finding good initial image pair"; counts restart then.
bool starts_new_model(const std::string& line);

struct ModelStats {
  long cameras = 0, images = 0, registered = 0, points = 0, observations = 0;
  double mean_track_length = 0, mean_reprojection_px = 0;
};

// Reads one line of `colmap model_analyzer` output ("Registered images: 23",
// "Mean reprojection error: 0.41px", ...) into `stats`; returns whether it was one.
bool parse_model_stat(const std::string& line, ModelStats& stats);

}  // namespace glint::capture
