// Vulkan device-memory caching allocator (see allocator.h).
#include "backends/vulkan/allocator.h"

#include <algorithm>
#include <cstdlib>

#include "adept/errors.h"
#include "backends/vulkan/context.h"

namespace adept::vk {

Allocator::Allocator(Context& ctx, bool host_visible)
    : ctx_(ctx),
      host_visible_(host_visible),
      // Segments never exceed the storage-buffer range, so any chunk can be bound whole.
      pool_([this](uint64_t bytes) -> void* { return new_block(bytes); },
            [this](void* seg, uint64_t) { destroy_block(static_cast<Block*>(seg)); },
            ctx.info().max_storage_buffer_range / 256 * 256) {
  const char* trace = std::getenv("ADEPT_VK_ALLOC_TRACE");
  if (!host_visible && trace && *trace) trace_ = std::fopen(trace, "w");
}

Allocator::~Allocator() {
  for (auto& [c, s] : deferred_) pool_.free(c);
  if (trace_) std::fclose(trace_);
}

Block* Allocator::new_block(VkDeviceSize size) {
  if (limit_ && pool_.stats().reserved + size > limit_) return nullptr;  // as if the driver had refused
  VkDevice dev = ctx_.device();
  auto b = std::make_unique<Block>();
  b->size = size;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  ADEPT_VK(vkCreateBuffer(dev, &bi, nullptr, &b->buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b->buffer, &req);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = host_visible_
      ? ctx_.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
      : ctx_.memory_type(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkResult r = vkAllocateMemory(dev, &ai, nullptr, &b->memory);
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
    vkDestroyBuffer(dev, b->buffer, nullptr);
    return nullptr;
  }
  ADEPT_VK(r);
  ADEPT_VK(vkBindBufferMemory(dev, b->buffer, b->memory, 0));
  if (host_visible_) ADEPT_VK(vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped));
  return b.release();
}

void Allocator::destroy_block(Block* b) {
  VkDevice dev = ctx_.device();
  if (b->mapped) vkUnmapMemory(dev, b->memory);
  vkDestroyBuffer(dev, b->buffer, nullptr);
  vkFreeMemory(dev, b->memory, nullptr);
  delete b;
}

Chunk* Allocator::allocate(size_t nbytes) {
  const uint64_t range = ctx_.info().max_storage_buffer_range;
  ADEPT_CHECK(BlockPool::round_size(nbytes) <= range, OutOfMemoryError,
              "vulkan allocate: {} bytes exceed the device's maximum storage-buffer range of {} bytes ({})", nbytes,
              range, ctx_.info().name);
  std::lock_guard<std::mutex> lock(mu_);
  Chunk* c = pool_.allocate(std::max<size_t>(nbytes, 1));
  if (!c) {
    const PoolStats s = pool_.stats();
    const std::string cap = limit_ ? fmt::format(", cap {} bytes (set_per_process_memory_fraction)", limit_) : "";
    const std::string last = *ctx_.last_op() ? fmt::format("; the last op recorded on the device was '{}'", ctx_.last_op())
                                             : "";
    throw OutOfMemoryError(fmt::format(
        "vulkan: out of memory: tried to allocate {} bytes on {} ({} bytes allocated by tensors, {} reserved{}{}); "
        "free tensors, lower the batch size or call empty_cache()",
        nbytes, ctx_.info().name, s.allocated, s.reserved, cap, last));
  }
  if (trace_) {
    c->trace_id = ++trace_ids_;
    std::fprintf(trace_, "+ %llu %zu\n", static_cast<unsigned long long>(c->trace_id), nbytes);
  }
  return c;
}

void Allocator::release(Chunk* c, uint64_t serial) {
  std::lock_guard<std::mutex> lock(mu_);
  // Device memory is only touched by commands of the one queue, each behind a full barrier: a command
  // recorded later that reuses the chunk runs after every earlier reader finished. Host writes could race
  // with queued GPU reads: host-visible chunks wait for the fence.
  if (trace_) std::fprintf(trace_, "- %llu\n", static_cast<unsigned long long>(c->trace_id));
  if (!host_visible_) pool_.free(c);
  else deferred_.emplace_back(c, serial);
}

void Allocator::collect(uint64_t completed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto keep = deferred_.begin();
  for (auto& [c, s] : deferred_) {
    if (s <= completed) pool_.free(c);
    else *keep++ = {c, s};
  }
  deferred_.erase(keep, deferred_.end());
}

VulkanMemoryStats Allocator::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  const PoolStats s = pool_.stats();
  VulkanMemoryStats r;
  r.allocated = s.allocated;
  r.reserved = s.reserved;
  r.peak = s.peak_allocated;
  r.peak_reserved = s.peak_reserved;
  r.segments = s.segments;
  r.device_allocations = s.device_allocations;
  r.largest_free_block = s.largest_free_block;
  r.fragmentation = s.fragmentation;
  return r;
}

void Allocator::reset_peak_stats() {
  std::lock_guard<std::mutex> lock(mu_);
  pool_.reset_peaks();
}

void Allocator::set_limit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  limit_ = bytes;
}

void Allocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  pool_.release_cached();
}

}  // namespace adept::vk
