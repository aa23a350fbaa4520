#pragma once
// A Vulkan instance and one logical device on it, as the backend uses them: the instance is
// created with the portability enumeration extension where the loader offers it (what
// MoltenVK's devices need to be listed) and, on request, with the Khronos validation layer
// and its synchronization validation, every message of which is recorded; the device with
// the portability subset extension where the device has it, and one compute queue.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "glint/backend/vulkan/vulkan_api.h"

namespace glint::vk {

// What `glint info --devices` shows of a physical device, and what choosing one reads.
struct DeviceInfo {
  int index = 0;  // in the instance's enumeration order (--device N, GLINT_VULKAN_DEVICE)
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  std::string driver;       // driver name and info ("llvmpipe, Mesa 22.3.6 (LLVM 15.0.6)")
  std::string driver_version;  // VkPhysicalDeviceProperties::driverVersion as its vendor encodes it
  std::uint32_t api_version = 0;
  std::uint32_t subgroup_size = 0;
  std::uint64_t max_storage_buffer_range = 0;
  std::uint64_t device_local_bytes = 0;  // the largest device-local heap
  bool usable = false;                   // Vulkan 1.1 and a compute queue
  std::string unusable_reason;
  bool is_gpu() const {
    return type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU || type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
  }
};
const char* type_name(VkPhysicalDeviceType t);  // "discrete GPU", "CPU", ...
std::string version_string(std::uint32_t v);     // "1.3.230"
// A driver version as its vendor packs it: NVIDIA's 10.8.8.6 bits, Intel's Windows 18.14,
// and everyone else's the Vulkan API version's packing.
std::string driver_version_string(std::uint32_t vendor_id, std::uint32_t v);

// Every validation message of instances created with validation, for the tests (which fail
// on any) and for GLINT_VULKAN_VALIDATION runs (which print them too).
class ValidationLog {
 public:
  void add(std::string m);
  std::vector<std::string> take();  // the messages since the last take, cleared
  std::size_t total() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  std::size_t total_ = 0;
};
ValidationLog& validation_log();

// Process-wide: whether new instances load the validation layer (with synchronization
// validation). Default: the environment variable GLINT_VULKAN_VALIDATION=1.
void set_validation(bool on);
bool validation_enabled();

class Instance {
 public:
  // Null (and `why`) without a loader, or when vkCreateInstance fails (no driver, or
  // validation asked for but the layer missing).
  static std::shared_ptr<Instance> create(std::string* why);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const VulkanApi& api() const { return api_; }
  VkInstance handle() const { return instance_; }
  const std::vector<VkPhysicalDevice>& physical_devices() const { return physical_; }
  const std::vector<DeviceInfo>& devices() const { return infos_; }
  bool validation() const { return validation_; }

 private:
  Instance() = default;
  VulkanApi api_{};
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> physical_;
  std::vector<DeviceInfo> infos_;
  bool validation_ = false;
};

// One instance a process (per validation setting), shared by every backend and listing.
std::shared_ptr<Instance> shared_instance(std::string* why);

// The devices of the shared instance; empty with `why` set when there is none.
std::vector<DeviceInfo> list_devices(std::string* why);

// The device a backend takes: `requested` (>= 0: --device N) if it exists and is usable, else
// GLINT_VULKAN_DEVICE when set, else the best usable one: a discrete GPU, then an
// integrated one, then (unless gpu_only) any other type, CPU ones last. -1 with `why` when
// there is none; a requested index that is out of range or unusable is an error (`why`).
int choose_device(const std::vector<DeviceInfo>& devices, int requested, bool gpu_only, std::string* why);

struct DeviceLimits {
  std::uint64_t max_storage_buffer_range = 0;
  std::uint64_t min_storage_buffer_offset_alignment = 0;
  std::uint32_t max_group_count_x = 0;
  std::uint32_t max_push_constants = 0;
  std::uint32_t max_shared_memory = 0;
  std::uint32_t max_storage_buffers_per_stage = 0;
  std::uint64_t max_buffer_size = 0;
  std::uint64_t max_allocation_size = 0;
  float timestamp_period_ns = 0;  // 0: no timestamps on the compute queue
};

class ProgramCache;

class Device {
 public:
  Device(std::shared_ptr<Instance> instance, int index);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const VulkanApi& api() const { return api_; }
  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  std::uint32_t queue_family() const { return family_; }
  const DeviceInfo& info() const { return info_; }
  const DeviceLimits& limits() const { return limits_; }
  // Memory type index for `type_bits` with `want` properties (falling back to `fallback`).
  std::uint32_t memory_type(std::uint32_t type_bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback) const;
  VkMemoryPropertyFlags memory_flags(std::uint32_t type) const;
  const Instance& instance() const { return *instance_; }
  // The largest storage-buffer binding the backend makes on this device: the device's
  // maxStorageBufferRange, or less when GLINT_VULKAN_MAX_BINDING_MB caps it (tests use the
  // cap to exercise split bindings on a device with a large range).
  std::uint64_t binding_limit() const { return binding_limit_; }
  void set_binding_limit(std::uint64_t bytes);
  // A buffer and its memory to destroy once the work recorded so far has run (a buffer that
  // grows while a recording may still read its old self); freed by free_retired().
  void retire(VkBuffer buffer, VkDeviceMemory memory);
  void free_retired();
  // Device memory the backend holds now and at most so far, in bytes.
  std::uint64_t memory_in_use() const { return in_use_; }
  std::uint64_t peak_memory() const { return peak_; }
  void count_memory(std::int64_t delta);
  // The pipelines made on this device so far (program.h), shared by its streams.
  ProgramCache& programs() { return *programs_; }

 private:
  std::unique_ptr<ProgramCache> programs_;
  std::vector<std::pair<VkBuffer, VkDeviceMemory>> retired_;
  std::uint64_t in_use_ = 0, peak_ = 0;
  std::shared_ptr<Instance> instance_;
  VulkanApi api_{};
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t family_ = 0;
  DeviceInfo info_;
  DeviceLimits limits_;
  VkPhysicalDeviceMemoryProperties memory_{};
  std::uint64_t binding_limit_ = 0;
};

// One Device per physical device and process while any holder keeps it, so that backends
// made one after another share its pipelines instead of compiling them again.
std::shared_ptr<Device> shared_device(std::shared_ptr<Instance> instance, int index);

}  // namespace glint::vk
