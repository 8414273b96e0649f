// Vulkan device-memory sub-allocator (see allocator.h).
#include "backends/vulkan/allocator.h"

#include <algorithm>

#include "adept/errors.h"
#include "backends/vulkan/context.h"

namespace adept::vk {

Allocator::Allocator(Context& ctx, bool host_visible) : ctx_(ctx), host_visible_(host_visible) {
  // Blocks never exceed the storage-buffer range, so any chunk can be bound whole.
  block_size_ = std::min<VkDeviceSize>(64ull << 20, ctx.info().max_storage_buffer_range / 256 * 256);
}

Allocator::~Allocator() {
  for (auto& b : blocks_) destroy_block(b.get());
  for (auto& [cls, v] : free_) for (Chunk* c : v) delete c;
  for (auto& [c, s] : deferred_) delete c;
}

VkDeviceSize Allocator::size_class(size_t n) {
  VkDeviceSize s = std::max<VkDeviceSize>(n, 256);
  // Round up to a quarter power of two: 2^k * {1, 1.25, 1.5, 1.75}, then to 256 bytes.
  VkDeviceSize p = 1;
  while (p * 2 <= s) p *= 2;
  VkDeviceSize q = std::max<VkDeviceSize>(p / 4, 256);
  return (s + q - 1) / q * q;
}

Block* Allocator::new_block(VkDeviceSize size, bool dedicated) {
  if (limit_ && reserved_ + size > limit_) return nullptr;  // as if the driver had refused
  VkDevice dev = ctx_.device();
  auto b = std::make_unique<Block>();
  b->size = size;
  b->dedicated = dedicated;
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
  reserved_ += size;
  peak_reserved_ = std::max(peak_reserved_, reserved_);
  blocks_.push_back(std::move(b));
  return blocks_.back().get();
}

void Allocator::destroy_block(Block* b) {
  VkDevice dev = ctx_.device();
  if (b->mapped) vkUnmapMemory(dev, b->memory);
  vkDestroyBuffer(dev, b->buffer, nullptr);
  vkFreeMemory(dev, b->memory, nullptr);
  reserved_ -= b->size;
}

Chunk* Allocator::allocate(size_t nbytes) {
  const VkDeviceSize cls = size_class(nbytes);
  ADEPT_CHECK(cls <= ctx_.info().max_storage_buffer_range, OutOfMemoryError,
              "vulkan allocate: {} bytes exceed the device's maximum storage-buffer range of {} bytes ({})", nbytes,
              ctx_.info().max_storage_buffer_range, ctx_.info().name);
  std::lock_guard<std::mutex> lock(mu_);
  Chunk* c = nullptr;
  for (int attempt = 0; attempt < 2 && !c; ++attempt) {
    auto it = free_.find(cls);
    if (it != free_.end() && !it->second.empty()) {
      c = it->second.back();
      it->second.pop_back();
      c->requested = nbytes;
      break;
    }
    if (cls > block_size_ / 2) {
      Block* b = new_block(cls, true);
      if (b) c = new Chunk{b, 0, cls, nbytes};
    } else {
      Block* b = nullptr;
      for (auto it2 = blocks_.rbegin(); it2 != blocks_.rend(); ++it2) {
        if (!(*it2)->dedicated && (*it2)->size - (*it2)->bump >= cls) { b = it2->get(); break; }
      }
      if (!b) b = new_block(block_size_, false);
      if (b) {
        c = new Chunk{b, b->bump, cls, nbytes};
        b->bump += cls;
      }
    }
    if (!c && attempt == 0) {
      // Out of memory: give cached blocks back to the driver and retry once.
      mu_.unlock();
      empty_cache();
      mu_.lock();
    }
  }
  if (!c) {
    const std::string cap = limit_ ? fmt::format(", cap {} bytes (set_per_process_memory_fraction)", limit_) : "";
    const std::string last = *ctx_.last_op() ? fmt::format("; the last op recorded on the device was '{}'", ctx_.last_op())
                                             : "";
    throw OutOfMemoryError(fmt::format(
        "vulkan: out of memory: tried to allocate {} bytes on {} ({} bytes allocated by tensors, {} reserved{}{}); "
        "free tensors, lower the batch size or call empty_cache()",
        nbytes, ctx_.info().name, allocated_, reserved_, cap, last));
  }
  c->block->live++;
  allocated_ += c->size;
  peak_ = std::max(peak_, allocated_);
  return c;
}

void Allocator::release(Chunk* c, uint64_t serial) {
  std::lock_guard<std::mutex> lock(mu_);
  allocated_ -= c->size;
  if (!host_visible_) {
    // Device memory is only touched by commands of the one queue, each behind a full barrier:
    // a command recorded later that reuses the chunk runs after every earlier reader finished.
    c->block->live--;
    free_[c->size].push_back(c);
    return;
  }
  deferred_.emplace_back(c, serial);  // host writes could race with queued GPU reads: wait for the fence
}

void Allocator::collect(uint64_t completed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto keep = deferred_.begin();
  for (auto& [c, s] : deferred_) {
    if (s <= completed) {
      c->block->live--;
      free_[c->size].push_back(c);
    } else {
      *keep++ = {c, s};
    }
  }
  deferred_.erase(keep, deferred_.end());
}

VulkanMemoryStats Allocator::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return {allocated_, reserved_, peak_, peak_reserved_};
}

void Allocator::reset_peaks() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_ = allocated_;
  peak_reserved_ = reserved_;
}

void Allocator::set_limit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  limit_ = bytes;
}

void Allocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::unique_ptr<Block>> kept;
  for (auto& b : blocks_) {
    if (b->live == 0) {
      for (auto& [cls, v] : free_) {
        v.erase(std::remove_if(v.begin(), v.end(), [&](Chunk* c) {
                  if (c->block != b.get()) return false;
                  delete c;
                  return true;
                }), v.end());
      }
      destroy_block(b.get());
    } else {
      kept.push_back(std::move(b));
    }
  }
  blocks_ = std::move(kept);
}

}  // namespace adept::vk
