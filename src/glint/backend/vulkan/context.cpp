#include "glint/backend/vulkan/context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "glint/backend/vulkan/program.h"
#include "glint/core/error.h"
#include <map>

namespace glint::vk {

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
  }
}

std::string version_string(std::uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

std::string driver_version_string(std::uint32_t vendor_id, std::uint32_t v) {
  const auto u = [](std::uint32_t x) { return std::to_string(x); };
  if (vendor_id == 0x10DE) return u(v >> 22) + "." + u((v >> 14) & 0xFFu) + "." + u((v >> 6) & 0xFFu) + "." + u(v & 0x3Fu);
#ifdef _WIN32
  if (vendor_id == 0x8086) return u(v >> 14) + "." + u(v & 0x3FFFu);
#endif
  return u(v >> 22) + "." + u((v >> 12) & 0x3FFu) + "." + u(v & 0xFFFu);
}

void ValidationLog::add(std::string m) {
  std::lock_guard<std::mutex> lock(mutex_);
  messages_.push_back(std::move(m));
  ++total_;
}
std::vector<std::string> ValidationLog::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  out.swap(messages_);
  return out;
}
std::size_t ValidationLog::total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}
ValidationLog& validation_log() {
  static ValidationLog log;
  return log;
}

namespace {

int& validation_setting() {
  static int v = [] {
    const char* e = std::getenv("GLINT_VULKAN_VALIDATION");
    return e && *e && std::strcmp(e, "0") != 0 ? 1 : 0;
  }();
  return v;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                          void*) {
  std::string m = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error: " : "warning: ";
  m += data && data->pMessage ? data->pMessage : "(no message)";
  std::fprintf(stderr, "glint: Vulkan validation %s\n", m.c_str());
  validation_log().add(std::move(m));
  return VK_FALSE;
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const auto& e : list)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::vector<VkExtensionProperties> instance_extensions(const VulkanApi& api, const char* layer) {
  std::uint32_t n = 0;
  if (api.vkEnumerateInstanceExtensionProperties(layer, &n, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> v(n);
  if (api.vkEnumerateInstanceExtensionProperties(layer, &n, v.data()) != VK_SUCCESS) return {};
  v.resize(n);
  return v;
}

std::vector<VkExtensionProperties> device_extensions(const VulkanApi& api, VkPhysicalDevice d) {
  std::uint32_t n = 0;
  if (api.vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> v(n);
  if (api.vkEnumerateDeviceExtensionProperties(d, nullptr, &n, v.data()) != VK_SUCCESS) return {};
  v.resize(n);
  return v;
}

int compute_family(const VulkanApi& api, VkPhysicalDevice d) {
  std::uint32_t n = 0;
  api.vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
  std::vector<VkQueueFamilyProperties> q(n);
  api.vkGetPhysicalDeviceQueueFamilyProperties(d, &n, q.data());
  for (std::uint32_t i = 0; i < n; ++i)
    if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return static_cast<int>(i);
  return -1;
}

DeviceInfo describe(const VulkanApi& api, VkPhysicalDevice d, int index) {
  DeviceInfo info;
  info.index = index;
  VkPhysicalDeviceProperties p{};
  api.vkGetPhysicalDeviceProperties(d, &p);
  info.name = p.deviceName;
  info.type = p.deviceType;
  info.api_version = p.apiVersion;
  info.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  if (p.apiVersion >= VK_API_VERSION_1_1 && api.vkGetPhysicalDeviceProperties2) {
    VkPhysicalDeviceSubgroupProperties sub{};
    sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceDriverProperties drv{};
    drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    const bool with_driver =
        p.apiVersion >= VK_API_VERSION_1_2 || has_extension(device_extensions(api, d), "VK_KHR_driver_properties");
    if (with_driver) sub.pNext = &drv;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &sub;
    api.vkGetPhysicalDeviceProperties2(d, &p2);
    info.subgroup_size = sub.subgroupSize;
    if (with_driver) {
      info.driver = drv.driverName;
      if (drv.driverInfo[0]) info.driver += std::string(", ") + drv.driverInfo;
    }
  }
  info.driver_version = driver_version_string(p.vendorID, p.driverVersion);
  if (info.driver.empty()) {  // a driver without VK_KHR_driver_properties: its vendor's id
    char vendor[32];
    std::snprintf(vendor, sizeof vendor, "vendor 0x%04x", p.vendorID);
    info.driver = vendor;
  }
  VkPhysicalDeviceMemoryProperties mem{};
  api.vkGetPhysicalDeviceMemoryProperties(d, &mem);
  for (std::uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.device_local_bytes = std::max<std::uint64_t>(info.device_local_bytes, mem.memoryHeaps[h].size);
  if (p.apiVersion < VK_API_VERSION_1_1)
    info.unusable_reason = "Vulkan " + version_string(p.apiVersion) + " (the backend needs 1.1)";
  else if (compute_family(api, d) < 0)
    info.unusable_reason = "no compute queue";
  info.usable = info.unusable_reason.empty();
  return info;
}

}  // namespace

void set_validation(bool on) { validation_setting() = on ? 1 : 0; }
bool validation_enabled() { return validation_setting() != 0; }

std::shared_ptr<Instance> Instance::create(std::string* why) {
  const VulkanApi* loader = vulkan_loader(why);
  if (!loader) return nullptr;
  std::shared_ptr<Instance> in(new Instance());
  in->validation_ = validation_enabled();
  const auto exts = instance_extensions(*loader, nullptr);
  std::vector<const char*> enable;
  VkInstanceCreateFlags flags = 0;
  // MoltenVK's devices are "portability" devices, listed only when the application says it
  // knows what the portability subset leaves out.
  if (has_extension(exts, "VK_KHR_portability_enumeration")) {
    enable.push_back("VK_KHR_portability_enumeration");
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  std::vector<const char*> layers;
  const VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync;
  VkDebugUtilsMessengerCreateInfoEXT messenger{};
  messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = on_message;
  const void* next = nullptr;
  if (in->validation_) {
    std::uint32_t n = 0;
    loader->vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> ls(n);
    loader->vkEnumerateInstanceLayerProperties(&n, ls.data());
    bool found = false;
    for (std::uint32_t i = 0; i < n; ++i) found |= std::strcmp(ls[i].layerName, "VK_LAYER_KHRONOS_validation") == 0;
    if (!found) {
      if (why) *why = "validation was asked for (GLINT_VULKAN_VALIDATION) but the Khronos validation layer is not installed";
      return nullptr;
    }
    layers.push_back("VK_LAYER_KHRONOS_validation");
    const auto layer_exts = instance_extensions(*loader, "VK_LAYER_KHRONOS_validation");
    enable.push_back("VK_EXT_debug_utils");
    if (has_extension(layer_exts, "VK_EXT_validation_features")) {
      enable.push_back("VK_EXT_validation_features");
      features.pNext = &messenger;
      next = &features;
    } else {
      next = &messenger;
    }
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "glint";
  app.pEngineName = "glint";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pNext = next;
  ci.flags = flags;
  ci.pApplicationInfo = &app;
  ci.enabledExtensionCount = static_cast<std::uint32_t>(enable.size());
  ci.ppEnabledExtensionNames = enable.data();
  ci.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  const VkResult r = loader->vkCreateInstance(&ci, nullptr, &in->instance_);
  if (r != VK_SUCCESS) {
    if (why)
      *why = r == VK_ERROR_INCOMPATIBLE_DRIVER ? "no Vulkan driver is installed"
                                               : std::string("vkCreateInstance failed: ") + result_name(r);
    in->instance_ = VK_NULL_HANDLE;
    return nullptr;
  }
  in->api_ = load_instance_functions(*loader, in->instance_);
  if (in->validation_ && in->api_.vkCreateDebugUtilsMessengerEXT)
    in->api_.vkCreateDebugUtilsMessengerEXT(in->instance_, &messenger, nullptr, &in->messenger_);
  std::uint32_t n = 0;
  if (in->api_.vkEnumeratePhysicalDevices(in->instance_, &n, nullptr) == VK_SUCCESS && n > 0) {
    in->physical_.resize(n);
    in->api_.vkEnumeratePhysicalDevices(in->instance_, &n, in->physical_.data());
    in->physical_.resize(n);
  }
  for (std::size_t i = 0; i < in->physical_.size(); ++i)
    in->infos_.push_back(describe(in->api_, in->physical_[i], static_cast<int>(i)));
  return in;
}

Instance::~Instance() {
  if (messenger_ && api_.vkDestroyDebugUtilsMessengerEXT)
    api_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_) api_.vkDestroyInstance(instance_, nullptr);
}

std::shared_ptr<Instance> shared_instance(std::string* why) {
  static std::mutex mutex;
  static std::weak_ptr<Instance> cache[2];
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<Instance>& slot = cache[validation_enabled() ? 1 : 0];
  if (auto in = slot.lock()) return in;
  auto in = Instance::create(why);
  slot = in;
  return in;
}

std::vector<DeviceInfo> list_devices(std::string* why) {
  auto in = shared_instance(why);
  if (!in) return {};
  if (in->devices().empty() && why) *why = "the Vulkan loader finds no device";
  return in->devices();
}

int choose_device(const std::vector<DeviceInfo>& devices, int requested, bool gpu_only, std::string* why) {
  if (requested < 0) {
    if (const char* e = std::getenv("GLINT_VULKAN_DEVICE"); e && *e) {
      char* end = nullptr;
      const long v = std::strtol(e, &end, 10);
      if (*end != '\0' || v < 0) {
        if (why) *why = std::string("GLINT_VULKAN_DEVICE='") + e + "' is not a device number";
        return -1;
      }
      requested = static_cast<int>(v);
    }
  }
  if (requested >= 0) {
    if (requested >= static_cast<int>(devices.size())) {
      if (why)
        *why = "there is no Vulkan device " + std::to_string(requested) + " (" + std::to_string(devices.size()) +
               " found; glint info --devices lists them)";
      return -1;
    }
    const DeviceInfo& d = devices[static_cast<std::size_t>(requested)];
    if (!d.usable) {
      if (why) *why = "Vulkan device " + std::to_string(requested) + " (" + d.name + ") cannot be used: " + d.unusable_reason;
      return -1;
    }
    return requested;
  }
  const VkPhysicalDeviceType order[] = {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
                                        VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_OTHER,
                                        VK_PHYSICAL_DEVICE_TYPE_CPU};
  for (VkPhysicalDeviceType t : order) {
    if (gpu_only && t != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU && t != VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU) break;
    for (const DeviceInfo& d : devices)
      if (d.usable && d.type == t) return d.index;
  }
  if (why) {
    if (devices.empty())
      *why = "no Vulkan device was found";
    else if (gpu_only)
      *why = "no Vulkan GPU was found (only " + devices[0].name + (devices.size() > 1 ? " and others" : "") + ")";
    else
      *why = "no usable Vulkan device (" + devices[0].name + ": " + devices[0].unusable_reason + ")";
  }
  return -1;
}

Device::Device(std::shared_ptr<Instance> instance, int index) : instance_(std::move(instance)) {
  api_ = instance_->api();
  if (index < 0 || index >= static_cast<int>(instance_->physical_devices().size()))
    throw Error("Vulkan", "no device " + std::to_string(index));
  physical_ = instance_->physical_devices()[static_cast<std::size_t>(index)];
  info_ = instance_->devices()[static_cast<std::size_t>(index)];
  if (!info_.usable) throw Error("Vulkan device " + std::to_string(index), info_.unusable_reason);
  family_ = static_cast<std::uint32_t>(compute_family(api_, physical_));
  const float priority = 1.f;
  VkDeviceQueueCreateInfo q{};
  q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  q.queueFamilyIndex = family_;
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  std::vector<const char*> enable;
  // A device that has the portability subset (MoltenVK) must have it enabled.
  if (has_extension(device_extensions(api_, physical_), "VK_KHR_portability_subset"))
    enable.push_back("VK_KHR_portability_subset");
  VkDeviceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &q;
  ci.enabledExtensionCount = static_cast<std::uint32_t>(enable.size());
  ci.ppEnabledExtensionNames = enable.data();
  check(api_.vkCreateDevice(physical_, &ci, nullptr, &device_), "vkCreateDevice");
  load_device_functions(api_, device_);
  api_.vkGetDeviceQueue(device_, family_, 0, &queue_);
  VkPhysicalDeviceProperties p{};
  api_.vkGetPhysicalDeviceProperties(physical_, &p);
  limits_.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  limits_.min_storage_buffer_offset_alignment = p.limits.minStorageBufferOffsetAlignment;
  limits_.max_group_count_x = p.limits.maxComputeWorkGroupCount[0];
  limits_.max_push_constants = p.limits.maxPushConstantsSize;
  limits_.max_shared_memory = p.limits.maxComputeSharedMemorySize;
  limits_.max_storage_buffers_per_stage = p.limits.maxPerStageDescriptorStorageBuffers;
  limits_.max_buffer_size = 0;
  if (p.apiVersion >= VK_API_VERSION_1_1 && api_.vkGetPhysicalDeviceProperties2) {
    VkPhysicalDeviceMaintenance3Properties m3{};
    m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &m3;
    api_.vkGetPhysicalDeviceProperties2(physical_, &p2);
    limits_.max_allocation_size = m3.maxMemoryAllocationSize;
  }
  std::uint32_t nq = 0;
  api_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  api_.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, qf.data());
  if (qf[family_].timestampValidBits > 0) limits_.timestamp_period_ns = p.limits.timestampPeriod;
  api_.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  programs_ = std::make_unique<ProgramCache>(*this);
  binding_limit_ = limits_.max_storage_buffer_range;
  if (const char* e = std::getenv("GLINT_VULKAN_MAX_BINDING_MB"); e && *e) {
    const long mb = std::strtol(e, nullptr, 10);
    if (mb > 0) set_binding_limit(static_cast<std::uint64_t>(mb) << 20);
  }
}

void Device::set_binding_limit(std::uint64_t bytes) {
  binding_limit_ = std::min<std::uint64_t>(std::max<std::uint64_t>(bytes, 1 << 16), limits_.max_storage_buffer_range);
}

void Device::retire(VkBuffer buffer, VkDeviceMemory memory) { retired_.emplace_back(buffer, memory); }

void Device::free_retired() {
  for (auto [b, m] : retired_) {
    if (b) api_.vkDestroyBuffer(device_, b, nullptr);
    if (m) api_.vkFreeMemory(device_, m, nullptr);
  }
  retired_.clear();
}

void Device::count_memory(std::int64_t delta) {
  in_use_ = static_cast<std::uint64_t>(static_cast<std::int64_t>(in_use_) + delta);
  peak_ = std::max(peak_, in_use_);
}

Device::~Device() {
  if (device_) {
    api_.vkDeviceWaitIdle(device_);
    programs_.reset();
    free_retired();
    api_.vkDestroyDevice(device_, nullptr);
  }
}

std::uint32_t Device::memory_type(std::uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback) const {
  for (VkMemoryPropertyFlags f : {want, fallback})
    for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
      if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & f) == f) return i;
  throw Error("Vulkan", "no memory type fits a buffer");
}

VkMemoryPropertyFlags Device::memory_flags(std::uint32_t type) const { return memory_.memoryTypes[type].propertyFlags; }

}  // namespace glint::vk

namespace glint::vk {
std::shared_ptr<Device> shared_device(std::shared_ptr<Instance> instance, int index) {
  static std::mutex mutex;
  static std::map<std::pair<const Instance*, int>, std::weak_ptr<Device>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{instance.get(), index}];
  if (auto d = slot.lock()) return d;
  auto d = std::make_shared<Device>(std::move(instance), index);
  slot = d;
  return d;
}
}  // namespace glint::vk
