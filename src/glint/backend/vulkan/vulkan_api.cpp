#include "glint/backend/vulkan/vulkan_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "glint/core/error.h"

namespace glint::vk {

const VulkanApi* vulkan_loader(std::string* why) {
  static VulkanApi api;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    // libvulkan.so.1 is the loader's ABI name on Linux; macOS (MoltenVK's loader) names it
    // libvulkan.1.dylib.
    const char* names[] = {"libvulkan.so.1", "libvulkan.so", "libvulkan.1.dylib", "libvulkan.dylib"};
    void* lib = nullptr;
    for (const char* n : names)
      if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!lib) {
      error = "no Vulkan loader (libvulkan.so.1) is installed";
      return;
    }
    api.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (!api.vkGetInstanceProcAddr) {
      error = "the Vulkan loader has no vkGetInstanceProcAddr";
      return;
    }
#define GLINT_X(f) api.f = reinterpret_cast<PFN_##f>(api.vkGetInstanceProcAddr(VK_NULL_HANDLE, #f));
    GLINT_VK_GLOBAL_FUNCTIONS(GLINT_X)
#undef GLINT_X
    if (!api.vkCreateInstance || !api.vkEnumerateInstanceExtensionProperties) {
      error = "the Vulkan loader lacks vkCreateInstance";
      api.vkGetInstanceProcAddr = nullptr;
    }
  });
  if (!api.vkGetInstanceProcAddr) {
    if (why) *why = error;
    return nullptr;
  }
  return &api;
}

VulkanApi load_instance_functions(const VulkanApi& global, VkInstance instance) {
  VulkanApi api = global;
#define GLINT_X(f) api.f = reinterpret_cast<PFN_##f>(global.vkGetInstanceProcAddr(instance, #f));
  GLINT_VK_INSTANCE_FUNCTIONS(GLINT_X)
#undef GLINT_X
  api.vkCreateDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      global.vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  api.vkDestroyDebugUtilsMessengerEXT = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      global.vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  return api;
}

void load_device_functions(VulkanApi& api, VkDevice device) {
#define GLINT_X(f)                                                            \
  api.f = reinterpret_cast<PFN_##f>(api.vkGetDeviceProcAddr(device, #f));     \
  if (!api.f) throw Error("Vulkan", "the driver does not provide " #f);
  GLINT_VK_DEVICE_FUNCTIONS(GLINT_X)
#undef GLINT_X
}

const char* result_name(VkResult r) {
  switch (r) {
#define GLINT_R(x) \
  case x:          \
    return #x;
    GLINT_R(VK_SUCCESS)
    GLINT_R(VK_NOT_READY)
    GLINT_R(VK_TIMEOUT)
    GLINT_R(VK_INCOMPLETE)
    GLINT_R(VK_ERROR_OUT_OF_HOST_MEMORY)
    GLINT_R(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GLINT_R(VK_ERROR_INITIALIZATION_FAILED)
    GLINT_R(VK_ERROR_DEVICE_LOST)
    GLINT_R(VK_ERROR_MEMORY_MAP_FAILED)
    GLINT_R(VK_ERROR_LAYER_NOT_PRESENT)
    GLINT_R(VK_ERROR_EXTENSION_NOT_PRESENT)
    GLINT_R(VK_ERROR_FEATURE_NOT_PRESENT)
    GLINT_R(VK_ERROR_INCOMPATIBLE_DRIVER)
    GLINT_R(VK_ERROR_TOO_MANY_OBJECTS)
    GLINT_R(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GLINT_R(VK_ERROR_FRAGMENTED_POOL)
    GLINT_R(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef GLINT_R
    default:
      return "VkResult error";
  }
}

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw Error("Vulkan", std::string(what) + " failed: " + result_name(r));
}

}  // namespace glint::vk
