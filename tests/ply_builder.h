#pragma once
// Builds PLY files the way other tools write them (other formats, types, property orders,
// extra elements), so the reader's tolerance is tested against files the test controls.
#include <string>
#include <vector>

#include "glint/core/gaussians.h"

namespace glint::test {

struct PlyProp {
  std::string type, name;
};

// The properties glint writes at an SH degree, all of one type, in glint's order.
std::vector<PlyProp> standard_props(int degree, const std::string& type = "float");

struct PlyBuild {
  std::string format = "binary_little_endian";
  std::vector<PlyProp> props;
  std::string extra_header_lines;  // after the format line: comments, obj_info
  std::string element_before;      // header lines of an element placed before vertex
  std::string body_before;         // that element's data
  std::string element_after;       // header lines of an element placed after vertex
  std::string body_after;
  std::string eol = "\n";  // header line ending
};

// The file for model m under the build's layout; properties the model lacks (extras) get
// the value 7.
std::string build_ply(const GaussianModel& m, const PlyBuild& b);

// One scalar in a binary PLY body.
std::string encode_scalar(const std::string& type, double v, bool big_endian);

}  // namespace glint::test
