#include "glint/backend/vulkan/stream.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "glint/core/error.h"

namespace glint::vk {

namespace {
constexpr std::uint32_t kSetsPerPool = 256;
constexpr std::uint32_t kDescriptorsPerPool = kSetsPerPool * 20;
constexpr std::size_t kStagingChunk = std::size_t(16) << 20;
}  // namespace

Stream::Stream(Device& device) : device_(device) {
  const VulkanApi& api = device.api();
  VkCommandPoolCreateInfo pi{};
  pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = device.queue_family();
  check(api.vkCreateCommandPool(device.handle(), &pi, nullptr, &pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  check(api.vkAllocateCommandBuffers(device.handle(), &ai, &cmd_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fi{};
  fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(api.vkCreateFence(device.handle(), &fi, nullptr, &fence_), "vkCreateFence");
  if (device.limits().timestamp_period_ns > 0) {
    VkQueryPoolCreateInfo qi{};
    qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = kTimestamps;
    if (api.vkCreateQueryPool(device.handle(), &qi, nullptr, &queries_) != VK_SUCCESS) queries_ = VK_NULL_HANDLE;
  }
}

Stream::~Stream() {
  const VulkanApi& api = device_.api();
  const VkDevice d = device_.handle();
  if (recording_) {  // abandoned after an exception: end and drop it
    api.vkEndCommandBuffer(cmd_);
  }
  api.vkDeviceWaitIdle(d);
  staging_.clear();
  device_.free_retired();
  for (VkDescriptorPool p : descriptor_pools_) api.vkDestroyDescriptorPool(d, p, nullptr);
  if (queries_) api.vkDestroyQueryPool(d, queries_, nullptr);
  if (fence_) api.vkDestroyFence(d, fence_, nullptr);
  if (pool_) api.vkDestroyCommandPool(d, pool_, nullptr);
}

void Stream::begin() {
  if (recording_) return;
  const VulkanApi& api = device_.api();
  check(api.vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(api.vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
  if (queries_) api.vkCmdResetQueryPool(cmd_, queries_, 0, kTimestamps);
  std::fill(std::begin(stamped_), std::end(stamped_), false);
  recording_ = true;
  commands_ = false;
}

void Stream::barrier() {
  begin();
  if (!commands_) {
    commands_ = true;
    return;
  }
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  device_.api().vkCmdPipelineBarrier(cmd_, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

VkDescriptorSet Stream::allocate_set(VkDescriptorSetLayout layout) {
  const VulkanApi& api = device_.api();
  for (;;) {
    if (descriptor_pool_ == descriptor_pools_.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kDescriptorsPerPool};
      VkDescriptorPoolCreateInfo ci{};
      ci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
      ci.maxSets = kSetsPerPool;
      ci.poolSizeCount = 1;
      ci.pPoolSizes = &size;
      VkDescriptorPool p = VK_NULL_HANDLE;
      check(api.vkCreateDescriptorPool(device_.handle(), &ci, nullptr, &p), "vkCreateDescriptorPool");
      descriptor_pools_.push_back(p);
    }
    VkDescriptorSetAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    ai.descriptorPool = descriptor_pools_[descriptor_pool_];
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    const VkResult r = api.vkAllocateDescriptorSets(device_.handle(), &ai, &set);
    if (r == VK_SUCCESS) return set;
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL) check(r, "vkAllocateDescriptorSets");
    ++descriptor_pool_;  // this pool is full for this recording: the next one
  }
}

Groups Stream::groups_for(std::size_t n, std::uint32_t local) const {
  const std::size_t groups = (n + local - 1) / local;
  const std::size_t max_x = std::max<std::uint32_t>(device_.limits().max_group_count_x, 1);
  Groups g;
  if (groups <= max_x) {
    g.x = static_cast<std::uint32_t>(std::max<std::size_t>(groups, 1));
  } else {
    g.x = static_cast<std::uint32_t>(max_x);
    g.y = static_cast<std::uint32_t>((groups + max_x - 1) / max_x);
  }
  return g;
}

void Stream::dispatch(const Program& program, Groups groups, const void* push, std::size_t push_bytes,
                      const Binding* bindings, std::size_t count) {
  if (count != program.bindings()) throw Error("Vulkan", program.name() + ": wrong number of bindings");
  const std::uint64_t limit = device_.binding_limit();
  const std::uint64_t align = std::max<std::uint64_t>(device_.limits().min_storage_buffer_offset_alignment, 1);
  std::vector<VkDescriptorBufferInfo> infos(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (bindings[i].bytes > limit)
      throw Error("Vulkan", program.name() + " would bind " + std::to_string(bindings[i].bytes >> 20) + " MiB at binding " +
                                std::to_string(i) + ", more than " + device_.info().name + "'s storage buffer range (" +
                                std::to_string(limit >> 20) + " MiB)");
    if (bindings[i].offset % align != 0)
      throw Error("Vulkan", program.name() + ": binding " + std::to_string(i) + " starts at an unaligned offset");
    infos[i] = {bindings[i].buffer, bindings[i].offset, std::max<VkDeviceSize>(bindings[i].bytes, 4)};
  }
  barrier();
  const VulkanApi& api = device_.api();
  const VkDescriptorSet set = allocate_set(program.set_layout());
  std::vector<VkWriteDescriptorSet> writes(count);
  for (std::size_t i = 0; i < count; ++i) {
    writes[i] = {};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<std::uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  api.vkUpdateDescriptorSets(device_.handle(), static_cast<std::uint32_t>(count), writes.data(), 0, nullptr);
  api.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, program.pipeline());
  api.vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, program.layout(), 0, 1, &set, 0, nullptr);
  if (push_bytes > 0)
    api.vkCmdPushConstants(cmd_, program.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<std::uint32_t>(push_bytes),
                           push);
  api.vkCmdDispatch(cmd_, groups.x, groups.y, groups.z);
}

void Stream::fill(const Buffer& b, VkDeviceSize offset, VkDeviceSize bytes, std::uint32_t value) {
  if (bytes == 0) return;
  barrier();
  device_.api().vkCmdFillBuffer(cmd_, b.handle(), offset, (bytes + 3) & ~VkDeviceSize(3), value);
}

void Stream::copy(const Buffer& src, VkDeviceSize so, const Buffer& dst, VkDeviceSize d_o, VkDeviceSize bytes) {
  if (bytes == 0) return;
  barrier();
  VkBufferCopy c{so, d_o, bytes};
  device_.api().vkCmdCopyBuffer(cmd_, src.handle(), dst.handle(), 1, &c);
}

void Stream::copy_regions(const Buffer& src, const Buffer& dst, const std::vector<VkBufferCopy>& regions) {
  if (regions.empty()) return;
  barrier();
  device_.api().vkCmdCopyBuffer(cmd_, src.handle(), dst.handle(), static_cast<std::uint32_t>(regions.size()),
                                regions.data());
}

std::size_t Stream::stage(std::size_t bytes, VkBuffer& buffer, VkDeviceSize& offset) {
  bytes = (bytes + 15) & ~std::size_t(15);
  for (std::size_t i = 0; i < staging_.size(); ++i) {
    Chunk& c = staging_[i];
    if (c.buffer.capacity() - c.used >= bytes) {
      buffer = c.buffer.handle();
      offset = c.used;
      c.used += bytes;
      return i;
    }
  }
  Chunk c;
  c.buffer.reserve(device_, std::max(bytes, kStagingChunk), true);
  c.used = bytes;
  buffer = c.buffer.handle();
  offset = 0;
  staging_.push_back(std::move(c));
  return staging_.size() - 1;
}

void Stream::upload(const Buffer& dst, VkDeviceSize offset, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  VkBuffer sb = VK_NULL_HANDLE;
  VkDeviceSize so = 0;
  const std::size_t chunk = stage(bytes, sb, so);
  std::memcpy(static_cast<char*>(staging_[chunk].buffer.mapped()) + so, src, bytes);
  barrier();
  VkBufferCopy c{so, offset, bytes};
  device_.api().vkCmdCopyBuffer(cmd_, sb, dst.handle(), 1, &c);
}

void Stream::download(const Buffer& src, VkDeviceSize offset, void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  VkBuffer sb = VK_NULL_HANDLE;
  VkDeviceSize so = 0;
  const std::size_t chunk = stage(bytes, sb, so);
  barrier();
  VkBufferCopy c{offset, so, bytes};
  device_.api().vkCmdCopyBuffer(cmd_, src.handle(), sb, 1, &c);
  downloads_.push_back({static_cast<const char*>(staging_[chunk].buffer.mapped()) + so, dst, bytes});
}

void Stream::timestamp(std::uint32_t slot) {
  if (!queries_ || slot >= kTimestamps) return;
  begin();
  device_.api().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, slot);
  stamped_[slot] = true;
}

double Stream::elapsed_ms(std::uint32_t from, std::uint32_t to) const {
  if (from >= kTimestamps || to >= kTimestamps || !stamp_recorded_[from] || !stamp_recorded_[to]) return -1;
  return static_cast<double>(stamps_[to] - stamps_[from]) * device_.limits().timestamp_period_ns * 1e-6;
}

void Stream::finish() {
  if (!recording_) return;
  const VulkanApi& api = device_.api();
  // what the copies wrote, visible to the host's reads of the staging memory
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  api.vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  recording_ = false;
  check(api.vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  check(api.vkQueueSubmit(device_.queue(), 1, &si, fence_), "vkQueueSubmit");
  const VkResult w = api.vkWaitForFences(device_.handle(), 1, &fence_, VK_TRUE, UINT64_MAX);
  check(api.vkResetFences(device_.handle(), 1, &fence_), "vkResetFences");
  check(w, "vkWaitForFences");
  for (const PendingDownload& d : downloads_) std::memcpy(d.dst, d.src, d.bytes);
  downloads_.clear();
  device_.free_retired();
  for (Chunk& c : staging_) c.used = 0;
  // keep one staging chunk (the largest) for the next recording
  if (staging_.size() > 1) {
    std::sort(staging_.begin(), staging_.end(),
              [](const Chunk& a, const Chunk& b) { return a.buffer.capacity() > b.buffer.capacity(); });
    staging_.resize(1);
  }
  for (std::size_t i = 0; i < descriptor_pools_.size(); ++i)
    api.vkResetDescriptorPool(device_.handle(), descriptor_pools_[i], 0);
  descriptor_pool_ = 0;
  // a slot not stamped in this submission keeps its time: a span may cross finish() calls
  // (the forward's stages finish once to size the tile lists)
  for (std::uint32_t i = 0; i < kTimestamps; ++i)
    if (stamped_[i])
      stamp_recorded_[i] =
          queries_ && api.vkGetQueryPoolResults(device_.handle(), queries_, i, 1, sizeof(std::uint64_t), &stamps_[i],
                                                sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT) == VK_SUCCESS;
}

}  // namespace glint::vk
