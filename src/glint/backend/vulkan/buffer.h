#pragma once
// Device memory: a Buffer is a VkBuffer with memory of its own (device-local where the
// device has it; host-visible and mapped for staging), and Array<T> a typed, growable buffer
// of T. Arrays grow and never shrink, so a frame's buffers are allocated once and reused;
// growing does not keep the contents.
#include <cstddef>
#include <cstdint>
#include <utility>

#include "glint/backend/vulkan/context.h"

namespace glint::vk {

class Buffer {
 public:
  Buffer() = default;
  ~Buffer() { release(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;

  // Makes the buffer hold at least `bytes` (a new allocation when it must grow).
  void reserve(Device& device, std::size_t bytes, bool host_visible = false);
  void release();
  VkBuffer handle() const { return buffer_; }
  std::size_t capacity() const { return capacity_; }
  void* mapped() const { return mapped_; }  // host-visible buffers only
  Device* device() const { return device_; }

 private:
  Device* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::size_t capacity_ = 0;
  void* mapped_ = nullptr;
};

// `n` elements of T in device memory (T: float, uint32_t, int32_t or a struct of
// shaders/shared_types.h).
template <class T>
class Array {
 public:
  using value_type = T;
  void resize(Device& device, std::size_t n) {
    buffer_.reserve(device, (n > 0 ? n : 1) * sizeof(T));
    size_ = n;
  }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  const Buffer& buffer() const { return buffer_; }
  Buffer& buffer() { return buffer_; }
  void release() {
    buffer_.release();
    size_ = 0;
  }

 private:
  Buffer buffer_;
  std::size_t size_ = 0;
};

}  // namespace glint::vk
