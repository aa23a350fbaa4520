#pragma once
// A compute pipeline made from one embedded shader, and the interface the C++ side expects
// of it. The interface is checked against the SPIR-V's own reflection (SPIRV-Cross) when the
// pipeline is created, before any work could be submitted: every storage buffer binding
// 0..n-1 in set 0 with the expected element type and size, read-only exactly where the C++
// side passes In<T>, and a push-constant block with the C++ struct's size and member
// offsets. A mismatch throws glint::Error naming the shader and the difference.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "glint/backend/vulkan/context.h"

namespace glint::vk {

enum class ElementKind { f32, u32, i32, structure };

struct Field {
  const char* name;
  std::uint32_t offset;
  std::uint32_t size;
};

struct StructLayout {
  const char* name = nullptr;
  std::uint32_t size = 0;
  std::span<const Field> fields;
};

struct BindingSpec {
  bool writable = false;
  ElementKind kind = ElementKind::f32;
  std::uint32_t element_size = 4;
  StructLayout layout;  // kind == structure
};

struct ProgramSpec {
  std::string shader;  // the .comp file's name
  StructLayout push;
  std::vector<BindingSpec> bindings;
};

class Program {
 public:
  Program(Device& device, const ProgramSpec& spec);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  VkPipeline pipeline() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  std::uint32_t local_size_x() const { return local_size_[0]; }
  std::size_t bindings() const { return bindings_; }
  const std::string& name() const { return name_; }

 private:
  Device& device_;
  std::string name_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::uint32_t local_size_[3] = {1, 1, 1};
  std::size_t bindings_ = 0;
};

// Throws glint::Error when `spirv` does not have the interface `spec` describes (the
// reflection check alone, without a device: the tests run it on every shader).
void check_interface(std::span<const std::uint32_t> spirv, const ProgramSpec& spec, std::uint32_t local_size[3]);

// The embedded SPIR-V of a shader by name; throws when there is none.
std::span<const std::uint32_t> shader_spirv(const std::string& name);

// The pipelines a device has made, one per declared interface (a ProgramSpec that lives as
// long as the process: dispatch.h's per-shader statics), each made and checked on first use;
// two declarations of one shader are each checked.
class ProgramCache {
 public:
  explicit ProgramCache(Device& device) : device_(device) {}
  const Program& get(const ProgramSpec& spec);
  Device& device() { return device_; }

 private:
  Device& device_;
  std::mutex mutex_;
  std::unordered_map<const ProgramSpec*, std::unique_ptr<Program>> programs_;
};

}  // namespace glint::vk
