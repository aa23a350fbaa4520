#pragma once
// The SPIR-V of the backend's shaders (shaders/*.comp), compiled and validated at build time
// and embedded by cmake/EmbedSpirv.cmake.
#include <cstdint>
#include <span>

namespace glint::vk {

struct EmbeddedShader {
  const char* name;  // the .comp file's name without extension
  std::span<const std::uint32_t> words;
};

std::span<const EmbeddedShader> embedded_shaders();

}  // namespace glint::vk
