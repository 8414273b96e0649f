// Device memory for Vulkan tensors: a caching allocator (block_pool.h) whose segments are VkBuffers.
// Freed blocks are cached, merged with free neighbours and reused by later requests. Device-local
// blocks are reused in stream order (every command waits, by a barrier, for the ones recorded before
// it, so a reuse never overlaps earlier readers); host-visible blocks (staging, metadata), which the
// host writes directly, are reused only after the fence of the batch that last used them.
#pragma once
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <vector>

#include "adept/vulkan.h"
#include "backends/vulkan/block_pool.h"

namespace adept::vk {

class Context;

/// One segment: a VkBuffer with its memory (mapped for host-visible pools).
struct Block {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
};

/// A handed-out range of a segment: what a Vulkan Storage's data() points to (offset and size in bytes).
using Chunk = PoolBlock;
/// The segment holding a chunk.
inline Block* block_of(const Chunk* c) { return static_cast<Block*>(c->segment); }

class Allocator {
 public:
  /// host_visible: a staging pool (HOST_VISIBLE|COHERENT, mapped); otherwise device-local tensors.
  Allocator(Context& ctx, bool host_visible);
  ~Allocator();
  /// Throws OutOfMemoryError (after releasing cached memory) when the driver or the cap refuses, naming
  /// the requested, allocated and reserved bytes.
  Chunk* allocate(size_t nbytes);
  /// Returns a chunk: device-local ones are reusable at once (stream order), host-visible ones
  /// once GPU work up to `serial` has completed.
  void release(Chunk* c, uint64_t serial);
  /// Moves deferred frees whose serial has completed into the cache.
  void collect(uint64_t completed_serial);
  VulkanMemoryStats stats();
  void reset_peak_stats();
  /// Caps the bytes reserved from the driver (0: no cap); requests beyond it raise OutOfMemoryError.
  void set_limit(uint64_t bytes);
  /// Gives segments with no live chunk back to the driver.
  void empty_cache();

 private:
  Block* new_block(VkDeviceSize size);
  void destroy_block(Block* b);

  Context& ctx_;
  bool host_visible_;
  std::mutex mu_;
  BlockPool pool_;
  std::vector<std::pair<Chunk*, uint64_t>> deferred_;
  uint64_t limit_ = 0;
  // ADEPT_VK_ALLOC_TRACE=FILE (device-local pool): one line per request "+ ID BYTES" and per free "- ID",
  // the input of the allocator's trace-replay test (tests/cpp/test_block_pool.cpp).
  std::FILE* trace_ = nullptr;
  uint64_t trace_ids_ = 0;
};

}  // namespace adept::vk
