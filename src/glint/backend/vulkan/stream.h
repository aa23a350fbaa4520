#pragma once
// Work for the device, recorded into one command buffer and run by finish(): dispatches,
// fills, copies, uploads from host memory and downloads into it. Every command is ordered
// after the previous one by a memory barrier (compute and transfer writes made visible to
// compute and transfer reads and writes), so a stage always sees what the stages before it
// wrote; downloads land in host memory when finish() returns. Uploads are staged in
// host-visible memory owned by the stream until then.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "glint/backend/vulkan/buffer.h"
#include "glint/backend/vulkan/program.h"

namespace glint::vk {

// One descriptor of a dispatch: a range of a buffer.
struct Binding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, bytes = 0;
};

struct Groups {
  std::uint32_t x = 1, y = 1, z = 1;
};

class Stream {
 public:
  explicit Stream(Device& device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Device& device() { return device_; }
  ProgramCache& programs() { return device_.programs(); }

  void dispatch(const Program& program, Groups groups, const void* push, std::size_t push_bytes,
                const Binding* bindings, std::size_t count);
  void fill(const Buffer& b, VkDeviceSize offset, VkDeviceSize bytes, std::uint32_t value);
  void copy(const Buffer& src, VkDeviceSize src_offset, const Buffer& dst, VkDeviceSize dst_offset, VkDeviceSize bytes);
  // Many ranges in one command (row edits): the destination ranges must not overlap each
  // other, nor, within one buffer, the source ranges.
  void copy_regions(const Buffer& src, const Buffer& dst, const std::vector<VkBufferCopy>& regions);
  void upload(const Buffer& dst, VkDeviceSize offset, const void* src, std::size_t bytes);
  // dst is written when finish() returns; it must stay valid until then.
  void download(const Buffer& src, VkDeviceSize offset, void* dst, std::size_t bytes);
  // A timestamp after everything recorded so far (slot < kTimestamps); read by elapsed_ms
  // after finish(). A slot keeps its time until it is stamped again, so the two ends of a
  // span may lie in different submissions. Does nothing on a queue without timestamps.
  static constexpr std::uint32_t kTimestamps = 4;
  void timestamp(std::uint32_t slot);
  double elapsed_ms(std::uint32_t from, std::uint32_t to) const;  // < 0 when not recorded
  // Submits what was recorded and waits for it; then the downloads are in host memory.
  void finish();
  // 1D dispatch shape for n elements at `local` a group (2D past maxComputeWorkGroupCount.x).
  Groups groups_for(std::size_t n, std::uint32_t local) const;

 private:
  void begin();
  void barrier();
  VkDescriptorSet allocate_set(VkDescriptorSetLayout layout);
  std::size_t stage(std::size_t bytes, VkBuffer& buffer, VkDeviceSize& offset);

  Device& device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> descriptor_pools_;
  std::size_t descriptor_pool_ = 0;
  struct Chunk {
    Buffer buffer;
    std::size_t used = 0;
  };
  std::vector<Chunk> staging_;
  struct PendingDownload {
    const void* src;
    void* dst;
    std::size_t bytes;
  };
  std::vector<PendingDownload> downloads_;
  bool recording_ = false;
  bool commands_ = false;  // a command since begin (the next one needs a barrier)
  std::uint64_t stamps_[kTimestamps] = {};
  bool stamped_[kTimestamps] = {};
  bool stamp_recorded_[kTimestamps] = {};
};

}  // namespace glint::vk
