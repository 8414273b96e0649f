// The caching allocator's block bookkeeping (see block_pool.h).
#include "backends/vulkan/block_pool.h"

#include <algorithm>
#include <tuple>

namespace adept::vk {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kSmallRequest = kMiB, kSmallSegment = 2 * kMiB, kSmallAlign = 512;
constexpr uint64_t kLargeSegment = 20 * kMiB, kOwnSegment = 10 * kMiB, kSegmentAlign = 2 * kMiB;
constexpr uint64_t kMinLargeSplit = kMiB;

uint64_t round_up(uint64_t n, uint64_t m) { return (n + m - 1) / m * m; }

}  // namespace

bool BlockPool::BySize::operator()(const PoolBlock* a, const PoolBlock* b) const {
  return std::tie(a->size, a->segment, a->offset) < std::tie(b->size, b->segment, b->offset);
}

BlockPool::BlockPool(SegmentAlloc alloc, SegmentFree free, uint64_t max_segment)
    : alloc_(std::move(alloc)), free_fn_(std::move(free)), max_segment_(max_segment) {}

BlockPool::~BlockPool() {
  for (const Segment& s : segments_) {
    void* segment = s.head->segment;
    for (PoolBlock* b = s.head; b;) {
      PoolBlock* next = b->next;
      delete b;
      b = next;
    }
    free_fn_(segment, s.size);
  }
}

uint64_t BlockPool::round_size(uint64_t n) {
  n = std::max<uint64_t>(n, 1);
  if (n <= kSmallRequest) return round_up(n, kSmallAlign);
  uint64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return round_up(n, p / 16);
}

PoolBlock* BlockPool::new_segment(uint64_t rounded, bool small) {
  uint64_t bytes = small ? kSmallSegment : rounded < kOwnSegment ? kLargeSegment : round_up(rounded, kSegmentAlign);
  bytes = std::min(bytes, max_segment_);
  void* seg = alloc_(bytes);
  if (!seg) {
    release_cached();
    seg = alloc_(bytes);
    if (!seg) return nullptr;
  }
  auto* b = new PoolBlock{seg, 0, bytes, 0, 0, true, small, nullptr, nullptr};
  segments_.push_back({b, bytes});
  stats_.reserved += bytes;
  stats_.segments++;
  stats_.device_allocations++;
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  return b;
}

PoolBlock* BlockPool::allocate(uint64_t nbytes) {
  const uint64_t size = round_size(nbytes);
  if (size > max_segment_) return nullptr;
  const bool small = size <= kSmallRequest;
  auto& set = free_set(small);
  PoolBlock key{nullptr, 0, size};
  PoolBlock* b = nullptr;
  auto it = set.lower_bound(&key);
  if (it != set.end()) {
    b = *it;
    set.erase(it);
  } else {
    b = new_segment(size, small);
    if (!b) return nullptr;
  }
  // Split off the rest when it is worth keeping as a block of its own.
  const uint64_t rest = b->size - size;
  if (rest >= (small ? kSmallAlign : kMinLargeSplit)) {
    auto* r = new PoolBlock{b->segment, b->offset + size, rest, 0, 0, true, small, b, b->next};
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    set.insert(r);
  }
  b->free = false;
  b->requested = nbytes;
  stats_.allocated += b->size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  return b;
}

void BlockPool::free(PoolBlock* b) {
  auto& set = free_set(b->small);
  stats_.allocated -= b->size;
  b->free = true;
  b->requested = 0;
  // Merge with free neighbours (each absorbed block leaves the free set).
  if (b->prev && b->prev->free) {
    PoolBlock* p = b->prev;
    set.erase(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next) b->next->prev = p;
    delete b;
    b = p;
  }
  if (b->next && b->next->free) {
    PoolBlock* n = b->next;
    set.erase(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next) n->next->prev = b;
    delete n;
  }
  set.insert(b);
}

void BlockPool::release_cached() {
  std::vector<Segment> kept;
  for (const Segment& s : segments_) {
    if (s.head->free && !s.head->next) {
      free_set(s.head->small).erase(s.head);
      free_fn_(s.head->segment, s.size);
      stats_.reserved -= s.size;
      stats_.segments--;
      delete s.head;
    } else {
      kept.push_back(s);
    }
  }
  segments_ = std::move(kept);
}

PoolStats BlockPool::stats() const {
  PoolStats s = stats_;
  for (const auto* set : {&small_free_, &large_free_}) {
    if (!set->empty()) s.largest_free_block = std::max(s.largest_free_block, (*set->rbegin())->size);
  }
  const uint64_t free_bytes = s.reserved - s.allocated;
  s.fragmentation = free_bytes ? 1.0 - static_cast<double>(s.largest_free_block) / static_cast<double>(free_bytes) : 0;
  return s;
}

void BlockPool::reset_peaks() {
  stats_.peak_allocated = stats_.allocated;
  stats_.peak_reserved = stats_.reserved;
}

}  // namespace adept::vk
