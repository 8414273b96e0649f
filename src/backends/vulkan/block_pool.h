// The bookkeeping of Vulkan's caching allocator, without any Vulkan call (so it is unit-tested with
// recorded allocation traces): segments obtained from a callback (one VkBuffer each in the allocator)
// are split into blocks; a request takes the best-fitting free block of its pool and splits off the
// rest, a freed block merges with free neighbours, and a segment goes back to the driver only when
// the owner asks (release_cached) or an allocation would otherwise fail.
//
// Pools and rounding (so that tensors whose sizes drift from step to step, like the targets of a
// detection batch, keep reusing the same blocks instead of fragmenting the cache):
//   small  requests <= 1 MiB, rounded to 512 bytes, carved from 2 MiB segments;
//   large  bigger requests, rounded up to a sixteenth of their power of two (at most 6.25% more), from
//          20 MiB segments below 10 MiB and otherwise from a segment of their own (rounded to 2 MiB);
//          a free block is split only when at least 1 MiB remains.
// Segments never exceed `max_segment` bytes (the device's storage-buffer range): a larger request is
// refused (allocate returns nullptr and the owner raises).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <vector>

namespace adept::vk {

/// One block of a segment: handed out (free == false) or cached.
struct PoolBlock {
  void* segment = nullptr;  // the owner's handle of the segment
  uint64_t offset = 0;      // bytes from the segment's start
  uint64_t size = 0;        // bytes (the rounded request, or a split remainder)
  uint64_t requested = 0;   // bytes asked for (handed-out blocks)
  uint64_t trace_id = 0;    // the owner's label (allocation traces)
  bool free = true;
  bool small = false;       // in the small pool
  PoolBlock* prev = nullptr;  // neighbours in the segment, by offset
  PoolBlock* next = nullptr;
};

/// Counters of a pool, in bytes unless named otherwise (PyTorch's memory_stats spells them alike).
struct PoolStats {
  uint64_t allocated = 0;       // handed-out blocks
  uint64_t reserved = 0;        // segments held
  uint64_t peak_allocated = 0;  // since construction or reset_peaks()
  uint64_t peak_reserved = 0;
  uint64_t segments = 0;             // segments held now
  uint64_t device_allocations = 0;   // segments ever obtained (driver allocations)
  uint64_t largest_free_block = 0;
  /// 1 - largest free block / free bytes (0: the cached memory is one block, or there is none).
  double fragmentation = 0;
};

class BlockPool {
 public:
  /// Obtains a segment of `bytes` and returns its handle, or nullptr when the driver refuses.
  using SegmentAlloc = std::function<void*(uint64_t bytes)>;
  using SegmentFree = std::function<void(void* segment, uint64_t bytes)>;
  BlockPool(SegmentAlloc alloc, SegmentFree free, uint64_t max_segment);
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  /// A block of at least `nbytes` (nbytes > 0), or nullptr when no segment can be had even after
  /// releasing the cached ones.
  PoolBlock* allocate(uint64_t nbytes);
  /// Returns a handed-out block to the cache (merging it with free neighbours).
  void free(PoolBlock* b);
  /// Gives every segment with no handed-out block back (SegmentFree).
  void release_cached();
  PoolStats stats() const;
  void reset_peaks();
  /// The size a request of nbytes is rounded to.
  static uint64_t round_size(uint64_t nbytes);

 private:
  struct BySize {
    bool operator()(const PoolBlock* a, const PoolBlock* b) const;
  };
  PoolBlock* new_segment(uint64_t rounded, bool small);
  std::set<PoolBlock*, BySize>& free_set(bool small) { return small ? small_free_ : large_free_; }

  SegmentAlloc alloc_;
  SegmentFree free_fn_;
  uint64_t max_segment_;
  std::set<PoolBlock*, BySize> small_free_, large_free_;
  struct Segment {
    PoolBlock* head;  // the block at offset 0
    uint64_t size;
  };
  std::vector<Segment> segments_;
  PoolStats stats_;
};

}  // namespace adept::vk
