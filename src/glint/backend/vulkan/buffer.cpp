#include "glint/backend/vulkan/buffer.h"

#include <string>

#include "glint/core/error.h"

namespace glint::vk {

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    device_ = std::exchange(o.device_, nullptr);
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    capacity_ = std::exchange(o.capacity_, 0);
    mapped_ = std::exchange(o.mapped_, nullptr);
  }
  return *this;
}

void Buffer::release() {
  if (!device_) return;
  const VulkanApi& api = device_->api();
  if (mapped_) api.vkUnmapMemory(device_->handle(), memory_);
  device_->retire(buffer_, memory_);  // a recording may still use it: freed after the next finish
  device_->count_memory(-static_cast<std::int64_t>(capacity_));
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  capacity_ = 0;
  device_ = nullptr;
}

void Buffer::reserve(Device& device, std::size_t bytes, bool host_visible) {
  bytes = (bytes + 15) & ~std::size_t(15);
  if (bytes < 16) bytes = 16;
  if (device_ == &device && bytes <= capacity_) return;
  release();
  if (device.limits().max_allocation_size > 0 && bytes > device.limits().max_allocation_size)
    throw Error("Vulkan", "a buffer of " + std::to_string(bytes >> 20) + " MiB is larger than " +
                              device.info().name + " allocates (" +
                              std::to_string(device.limits().max_allocation_size >> 20) + " MiB)");
  const VulkanApi& api = device.api();
  device_ = &device;
  VkBufferCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  ci.size = bytes;
  ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(api.vkCreateBuffer(device.handle(), &ci, nullptr, &buffer_), "vkCreateBuffer");
  VkMemoryRequirements req{};
  api.vkGetBufferMemoryRequirements(device.handle(), buffer_, &req);
  VkMemoryAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex =
      host_visible
          ? device.memory_type(req.memoryTypeBits,
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                   VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
          : device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  const VkResult r = api.vkAllocateMemory(device.handle(), &ai, nullptr, &memory_);
  if (r != VK_SUCCESS) {
    api.vkDestroyBuffer(device.handle(), buffer_, nullptr);
    buffer_ = VK_NULL_HANDLE;
    device_ = nullptr;
    throw Error("Vulkan", "allocating " + std::to_string(req.size >> 20) + " MiB on " + device.info().name +
                              " failed: " + result_name(r));
  }
  check(api.vkBindBufferMemory(device.handle(), buffer_, memory_, 0), "vkBindBufferMemory");
  if (host_visible) check(api.vkMapMemory(device.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  capacity_ = bytes;
  device.count_memory(static_cast<std::int64_t>(bytes));
}

}  // namespace glint::vk
