#include "glint/backend/vulkan/program.h"

#include <spirv_cross/spirv_cross_c.h>

#include <cstring>
#include <string>

#include "glint/backend/vulkan/shader_blobs.h"
#include "glint/core/error.h"

namespace glint::vk {
namespace {

const char* kind_name(ElementKind k) {
  switch (k) {
    case ElementKind::f32: return "float";
    case ElementKind::u32: return "uint";
    case ElementKind::i32: return "int";
    default: return "struct";
  }
}

// SPIRV-Cross's C API, its context released on every path.
struct Reflection {
  spvc_context context = nullptr;
  spvc_compiler compiler = nullptr;
  std::string shader;
  Reflection(std::span<const std::uint32_t> words, const std::string& name) : shader(name) {
    if (spvc_context_create(&context) != SPVC_SUCCESS) fail("SPIRV-Cross could not start");
    spvc_parsed_ir ir = nullptr;
    if (spvc_context_parse_spirv(context, words.data(), words.size(), &ir) != SPVC_SUCCESS)
      fail(std::string("its SPIR-V does not parse: ") + spvc_context_get_last_error_string(context));
    if (spvc_context_create_compiler(context, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &compiler) !=
        SPVC_SUCCESS)
      fail("SPIRV-Cross could not reflect it");
  }
  ~Reflection() {
    if (context) spvc_context_destroy(context);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("Vulkan shader " + shader, "interface mismatch: " + what);
  }
  // The C++ struct's fields against the SPIR-V struct `type` (by name: offset and size).
  void check_struct(spvc_type_id type_id, const StructLayout& want, const std::string& where) const {
    spvc_type type = spvc_compiler_get_type_handle(compiler, type_id);
    if (spvc_type_get_basetype(type) != SPVC_BASETYPE_STRUCT) fail(where + " is not a struct");
    size_t size = 0;
    spvc_compiler_get_declared_struct_size(compiler, type, &size);
    if (size != want.size)
      fail(where + ": the shader's " + want.name + " is " + std::to_string(size) + " bytes, C++'s " +
           std::to_string(want.size));
    const unsigned members = spvc_type_get_num_member_types(type);
    if (members != want.fields.size())
      fail(where + ": the shader's " + want.name + " has " + std::to_string(members) + " members, C++'s " +
           std::to_string(want.fields.size()));
    for (unsigned m = 0; m < members; ++m) {
      const char* name = spvc_compiler_get_member_name(compiler, spvc_type_get_base_type_id(type), m);
      unsigned offset = 0;
      spvc_compiler_type_struct_member_offset(compiler, type, m, &offset);
      size_t msize = 0;
      spvc_compiler_get_declared_struct_member_size(compiler, type, m, &msize);
      const Field& f = want.fields[m];
      if (!name || std::strcmp(name, f.name) != 0)
        fail(where + ": member " + std::to_string(m) + " of " + want.name + " is '" + (name ? name : "") +
             "' in the shader, '" + f.name + "' in C++");
      if (offset != f.offset || msize != f.size)
        fail(where + ": " + want.name + "::" + f.name + " is at " + std::to_string(offset) + " (" +
             std::to_string(msize) + " bytes) in the shader, at " + std::to_string(f.offset) + " (" +
             std::to_string(f.size) + " bytes) in C++");
    }
  }
};

}  // namespace

std::span<const std::uint32_t> shader_spirv(const std::string& name) {
  for (const EmbeddedShader& s : embedded_shaders())
    if (name == s.name) return s.words;
  throw Error("Vulkan", "no embedded shader named '" + name + "'");
}

void check_interface(std::span<const std::uint32_t> spirv, const ProgramSpec& spec, std::uint32_t local_size[3]) {
  Reflection r(spirv, spec.shader);
  spvc_resources res = nullptr;
  if (spvc_compiler_create_shader_resources(r.compiler, &res) != SPVC_SUCCESS) r.fail("no resources");
  const spvc_reflected_resource* list = nullptr;
  size_t count = 0;
  // only storage buffers: no uniform buffers, images or samplers
  for (spvc_resource_type t : {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, SPVC_RESOURCE_TYPE_STORAGE_IMAGE,
                               SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, SPVC_RESOURCE_TYPE_SEPARATE_IMAGE}) {
    spvc_resources_get_resource_list_for_type(res, t, &list, &count);
    if (count > 0) r.fail("it declares a resource other than storage buffers and push constants");
  }
  spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, &list, &count);
  if (count != spec.bindings.size())
    r.fail("it declares " + std::to_string(count) + " storage buffers, the C++ call passes " +
           std::to_string(spec.bindings.size()));
  std::vector<bool> seen(count, false);
  for (size_t i = 0; i < count; ++i) {
    const unsigned set = spvc_compiler_get_decoration(r.compiler, list[i].id, SpvDecorationDescriptorSet);
    const unsigned b = spvc_compiler_get_decoration(r.compiler, list[i].id, SpvDecorationBinding);
    const std::string where = "binding " + std::to_string(b) + " (" + list[i].name + ")";
    if (set != 0) r.fail(where + " is in set " + std::to_string(set) + ", not 0");
    if (b >= count || seen[b]) r.fail(where + ": bindings must be 0.." + std::to_string(count - 1) + ", each once");
    seen[b] = true;
    const BindingSpec& want = spec.bindings[b];
    spvc_type block = spvc_compiler_get_type_handle(r.compiler, list[i].base_type_id);
    if (spvc_type_get_num_member_types(block) != 1) r.fail(where + " must hold one runtime array");
    const spvc_type_id arr_id = spvc_type_get_member_type(block, 0);
    spvc_type arr = spvc_compiler_get_type_handle(r.compiler, arr_id);
    if (spvc_type_get_num_array_dimensions(arr) != 1 || spvc_type_array_dimension_is_literal(arr, 0) != SPVC_TRUE ||
        spvc_type_get_array_dimension(arr, 0) != 0)
      r.fail(where + " must hold one runtime array");
    unsigned stride = 0;
    spvc_compiler_type_struct_member_array_stride(r.compiler, block, 0, &stride);
    const spvc_basetype bt = spvc_type_get_basetype(arr);
    ElementKind kind = ElementKind::structure;
    const unsigned width = spvc_type_get_bit_width(arr);
    if (bt == SPVC_BASETYPE_FP32 && spvc_type_get_vector_size(arr) == 1) kind = ElementKind::f32;
    else if (bt == SPVC_BASETYPE_UINT32 && width == 32 && spvc_type_get_vector_size(arr) == 1) kind = ElementKind::u32;
    else if (bt == SPVC_BASETYPE_INT32 && width == 32 && spvc_type_get_vector_size(arr) == 1) kind = ElementKind::i32;
    else if (bt != SPVC_BASETYPE_STRUCT) r.fail(where + " holds an element type the backend does not pass");
    if (kind != want.kind)
      r.fail(where + " holds " + kind_name(kind) + " in the shader, " + kind_name(want.kind) + " in the C++ call");
    if (stride != want.element_size)
      r.fail(where + ": elements of " + std::to_string(stride) + " bytes in the shader, " +
             std::to_string(want.element_size) + " in the C++ call");
    if (kind == ElementKind::structure) {
      const char* sname = spvc_compiler_get_name(r.compiler, spvc_type_get_base_type_id(arr));
      if (!sname || std::strcmp(sname, want.layout.name) != 0)
        r.fail(where + " holds " + (sname ? sname : "?") + " in the shader, " + want.layout.name + " in C++");
      r.check_struct(arr_id, want.layout, where);
    }
    const bool readonly = spvc_compiler_has_member_decoration(r.compiler, list[i].base_type_id, 0,
                                                              SpvDecorationNonWritable) == SPVC_TRUE ||
                          spvc_compiler_has_decoration(r.compiler, list[i].id, SpvDecorationNonWritable) == SPVC_TRUE;
    if (readonly == want.writable)
      r.fail(where + (readonly ? " is readonly in the shader but the C++ call passes Out<>"
                               : " is writable in the shader but the C++ call passes In<>"));
  }
  spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list, &count);
  if (spec.push.size == 0) {
    if (count != 0) r.fail("it has push constants but the C++ call passes none");
  } else {
    if (count != 1) r.fail("it has no push-constant block, the C++ call passes " + std::string(spec.push.name));
    spvc_type block = spvc_compiler_get_type_handle(r.compiler, list[0].base_type_id);
    if (spvc_type_get_num_member_types(block) != 1)
      r.fail("its push-constant block must hold exactly one struct (" + std::string(spec.push.name) + ")");
    unsigned offset = 1;
    spvc_compiler_type_struct_member_offset(r.compiler, block, 0, &offset);
    if (offset != 0) r.fail("its push-constant struct does not start at offset 0");
    r.check_struct(spvc_type_get_member_type(block, 0), spec.push, "push constants");
  }
  for (unsigned k = 0; k < 3; ++k)
    local_size[k] = spvc_compiler_get_execution_mode_argument_by_index(r.compiler, SpvExecutionModeLocalSize, k);
}

Program::Program(Device& device, const ProgramSpec& spec) : device_(device), name_(spec.shader) {
  const std::span<const std::uint32_t> words = shader_spirv(spec.shader);
  check_interface(words, spec, local_size_);
  bindings_ = spec.bindings.size();
  if (bindings_ > device.limits().max_storage_buffers_per_stage)
    throw Error("Vulkan", device.info().name + " allows " +
                              std::to_string(device.limits().max_storage_buffers_per_stage) +
                              " storage buffers a shader; " + spec.shader + " needs " + std::to_string(bindings_));
  if (spec.push.size > device.limits().max_push_constants)
    throw Error("Vulkan", device.info().name + " allows " + std::to_string(device.limits().max_push_constants) +
                              " bytes of push constants; " + spec.shader + " needs " + std::to_string(spec.push.size));
  const VulkanApi& api = device.api();
  const VkDevice d = device.handle();
  VkShaderModuleCreateInfo mi{};
  mi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  mi.codeSize = words.size() * 4;
  mi.pCode = words.data();
  check(api.vkCreateShaderModule(d, &mi, nullptr, &module_), "vkCreateShaderModule");
  std::vector<VkDescriptorSetLayoutBinding> b(bindings_);
  for (std::size_t i = 0; i < bindings_; ++i) {
    b[i].binding = static_cast<std::uint32_t>(i);
    b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[i].descriptorCount = 1;
    b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo li{};
  li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  li.bindingCount = static_cast<std::uint32_t>(bindings_);
  li.pBindings = b.data();
  check(api.vkCreateDescriptorSetLayout(d, &li, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
  VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, spec.push.size};
  VkPipelineLayoutCreateInfo pl{};
  pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &set_layout_;
  pl.pushConstantRangeCount = spec.push.size > 0 ? 1 : 0;
  pl.pPushConstantRanges = &pr;
  check(api.vkCreatePipelineLayout(d, &pl, nullptr, &layout_), "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module_;
  ci.stage.pName = "main";
  ci.layout = layout_;
  check(api.vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline_), "vkCreateComputePipelines");
}

Program::~Program() {
  const VulkanApi& api = device_.api();
  const VkDevice d = device_.handle();
  if (pipeline_) api.vkDestroyPipeline(d, pipeline_, nullptr);
  if (layout_) api.vkDestroyPipelineLayout(d, layout_, nullptr);
  if (set_layout_) api.vkDestroyDescriptorSetLayout(d, set_layout_, nullptr);
  if (module_) api.vkDestroyShaderModule(d, module_, nullptr);
}

const Program& ProgramCache::get(const ProgramSpec& spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = programs_.find(&spec);
  if (it != programs_.end()) return *it->second;
  auto p = std::make_unique<Program>(device_, spec);
  return *programs_.emplace(&spec, std::move(p)).first->second;
}

}  // namespace glint::vk
