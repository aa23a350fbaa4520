#pragma once
// The PLY body reader shared by the splat reader (ply.h) and the point-cloud reader:
// routes the vertex element's properties into float arrays and skips every other
// element, with every count checked against the bytes that are there.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "glint/io/ply_header.h"

namespace glint::ply {

// Where one vertex property lands: value i goes to array[offset + i*stride].
struct Target {
  std::vector<float>* array = nullptr;  // null: read past and ignored
  std::size_t offset = 0, stride = 0;
};

// `targets` has one entry per property of element `vertex`. `resize(count)` is called
// once the vertex count has been checked against the data, before any value is stored.
void read_vertex_body(const std::string& data, const Header& h, std::size_t vertex,
                      const std::vector<Target>& targets, const std::function<void(std::size_t)>& resize,
                      const std::string& name);

// Index of the element named "vertex"; throws glint::Error when there is none.
std::size_t vertex_element(const Header& h, const std::string& name);

}  // namespace glint::ply
