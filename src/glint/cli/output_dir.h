#pragma once
// Output folders of commands: created when missing; files already there are never
// replaced unless the user passed --force.
#include <string>
#include <vector>

namespace glint::cli {

// Creates `dir` if needed and fails (glint::Error) when any of `files` (names inside it)
// already exists and `force` is false.
void prepare_output_dir(const std::string& dir, const std::vector<std::string>& files, bool force);

// File stem of a camera / image name, safe as a file name ("./train/r_0.png" -> "r_0").
std::string output_stem(const std::string& name);

}  // namespace glint::cli
