// Device memory for Vulkan tensors: large blocks (one VkBuffer each) sub-allocated in size
// classes (quarter-power-of-two steps, 256-byte aligned); freed chunks are reused by later
// allocations of the same class. Device-local chunks are reused in stream order (every command
// waits, by a barrier, for the ones recorded before it, so a reuse never overlaps earlier
// readers); host-visible chunks (staging, metadata), which the host writes directly, are reused
// only after the fence of the batch that last used them. Large requests get a block of their own.
#pragma once
#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "adept/vulkan.h"

namespace adept::vk {

class Context;

struct Block {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  VkDeviceSize bump = 0;   // next never-used byte
  int64_t live = 0;        // chunks handed out and not yet returned to a free list's reuse
  void* mapped = nullptr;  // host pointer for host-visible pools
  bool dedicated = false;
};

/// A sub-range of a block; what a Vulkan Storage's data() points to.
struct Chunk {
  Block* block;
  VkDeviceSize offset;
  VkDeviceSize size;  // rounded (class) size
  size_t requested;
};

class Allocator {
 public:
  /// host_visible: a staging pool (HOST_VISIBLE|COHERENT, mapped); otherwise device-local tensors.
  Allocator(Context& ctx, bool host_visible);
  ~Allocator();
  /// Throws OutOfMemoryError (after trying to release cached memory) when the driver refuses.
  Chunk* allocate(size_t nbytes);
  /// Returns a chunk: device-local ones are reusable at once (stream order), host-visible ones
  /// once GPU work up to `serial` has completed.
  void release(Chunk* c, uint64_t serial);
  /// Moves deferred frees whose serial has completed onto the free lists.
  void collect(uint64_t completed_serial);
  VulkanMemoryStats stats();
  /// Peaks back to the current values.
  void reset_peaks();
  /// Caps the bytes reserved from the driver (0: no cap); requests beyond it raise OutOfMemoryError.
  void set_limit(uint64_t bytes);
  /// Frees blocks with no live chunk (cached free chunks of them are dropped).
  void empty_cache();

 private:
  static VkDeviceSize size_class(size_t n);
  Block* new_block(VkDeviceSize size, bool dedicated);
  void destroy_block(Block* b);

  Context& ctx_;
  bool host_visible_;
  VkDeviceSize block_size_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::map<VkDeviceSize, std::vector<Chunk*>> free_;
  std::vector<std::pair<Chunk*, uint64_t>> deferred_;
  uint64_t allocated_ = 0, reserved_ = 0, peak_ = 0, peak_reserved_ = 0, limit_ = 0;
};

}  // namespace adept::vk
