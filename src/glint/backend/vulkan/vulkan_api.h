#pragma once
// The Vulkan loader, opened at run time (dlopen of libvulkan.so.1): a build with the Vulkan
// backend still starts, and uses the CPU, on a machine that has no Vulkan loader or driver at
// all. Every entry point the backend calls is a member of VulkanApi, loaded once.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace glint::vk {

// Global and instance-level functions (loaded with vkGetInstanceProcAddr).
#define GLINT_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkEnumerateInstanceLayerProperties)
#define GLINT_VK_INSTANCE_FUNCTIONS(X)        \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures)              \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)
#define GLINT_VK_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                 \
  X(vkGetDeviceQueue)                \
  X(vkCreateBuffer)                  \
  X(vkDestroyBuffer)                 \
  X(vkGetBufferMemoryRequirements)   \
  X(vkAllocateMemory)                \
  X(vkFreeMemory)                    \
  X(vkBindBufferMemory)              \
  X(vkMapMemory)                     \
  X(vkUnmapMemory)                   \
  X(vkInvalidateMappedMemoryRanges)  \
  X(vkFlushMappedMemoryRanges)       \
  X(vkCreateShaderModule)            \
  X(vkDestroyShaderModule)           \
  X(vkCreateDescriptorSetLayout)     \
  X(vkDestroyDescriptorSetLayout)    \
  X(vkCreatePipelineLayout)          \
  X(vkDestroyPipelineLayout)         \
  X(vkCreateComputePipelines)        \
  X(vkDestroyPipeline)               \
  X(vkCreateDescriptorPool)          \
  X(vkDestroyDescriptorPool)         \
  X(vkResetDescriptorPool)           \
  X(vkAllocateDescriptorSets)        \
  X(vkUpdateDescriptorSets)          \
  X(vkCreateCommandPool)             \
  X(vkDestroyCommandPool)            \
  X(vkAllocateCommandBuffers)        \
  X(vkBeginCommandBuffer)            \
  X(vkEndCommandBuffer)              \
  X(vkResetCommandBuffer)            \
  X(vkCmdBindPipeline)               \
  X(vkCmdBindDescriptorSets)         \
  X(vkCmdPushConstants)              \
  X(vkCmdDispatch)                   \
  X(vkCmdPipelineBarrier)            \
  X(vkCmdCopyBuffer)                 \
  X(vkCmdFillBuffer)                 \
  X(vkCmdResetQueryPool)             \
  X(vkCmdWriteTimestamp)             \
  X(vkCreateQueryPool)               \
  X(vkDestroyQueryPool)              \
  X(vkGetQueryPoolResults)           \
  X(vkQueueSubmit)                   \
  X(vkCreateFence)                   \
  X(vkDestroyFence)                  \
  X(vkWaitForFences)                 \
  X(vkResetFences)                   \
  X(vkDeviceWaitIdle)

struct VulkanApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define GLINT_X(f) PFN_##f f = nullptr;
  GLINT_VK_GLOBAL_FUNCTIONS(GLINT_X)
  GLINT_VK_INSTANCE_FUNCTIONS(GLINT_X)
  GLINT_VK_DEVICE_FUNCTIONS(GLINT_X)
#undef GLINT_X
  // VK_EXT_debug_utils, when the validation layer is on
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
};

// The loader's global functions, or null with `why` set when there is no loader. Opened once
// per process; never closed.
const VulkanApi* vulkan_loader(std::string* why);

// The instance-level functions of `instance` into a copy of the global table.
VulkanApi load_instance_functions(const VulkanApi& global, VkInstance instance);
// The device-level functions of `device` into api.
void load_device_functions(VulkanApi& api, VkDevice device);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.
const char* result_name(VkResult r);

// Throws glint::Error("Vulkan", "<what> failed: <result>") unless r is VK_SUCCESS.
void check(VkResult r, const char* what);

}  // namespace glint::vk
