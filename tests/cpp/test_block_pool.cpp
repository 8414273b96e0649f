// The Vulkan caching allocator's bookkeeping (src/backends/vulkan/block_pool.h) on fake segments:
// splitting, merging, rounding, release, statistics, and a recorded YOLO11 training step's allocation
// trace replayed for 2000 steps with drifting sizes (reserved memory must stay flat after warm-up).
#ifdef ADEPT_WITH_VULKAN
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "backends/vulkan/block_pool.h"

namespace adept::vk {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// Segments are plain integers; `refuse_over` bytes reserved makes the fake driver refuse.
struct FakeDriver {
  uint64_t next = 1, reserved = 0, refuse_over = UINT64_MAX;
  std::set<uint64_t> live;
  BlockPool pool{[this](uint64_t bytes) -> void* {
                   if (reserved + bytes > refuse_over) return nullptr;
                   reserved += bytes;
                   live.insert(next);
                   return reinterpret_cast<void*>(next++);
                 },
                 [this](void* seg, uint64_t bytes) {
                   reserved -= bytes;
                   live.erase(reinterpret_cast<uint64_t>(seg));
                 },
                 128 * kMiB};
};

TEST(BlockPool, RoundsSmallTo512BytesAndLargeToASixteenthOfTheirPowerOfTwo) {
  EXPECT_EQ(BlockPool::round_size(1), 512u);
  EXPECT_EQ(BlockPool::round_size(513), 1024u);
  EXPECT_EQ(BlockPool::round_size(kMiB), kMiB);
  EXPECT_EQ(BlockPool::round_size(kMiB + 1), kMiB + kMiB / 16);
  EXPECT_EQ(BlockPool::round_size(5 * kMiB), 5 * kMiB);
  EXPECT_EQ(BlockPool::round_size(5 * kMiB + 1), 5 * kMiB + kMiB / 4);
}

TEST(BlockPool, SplitsASegmentAndMergesFreedNeighboursBack) {
  FakeDriver d;
  PoolBlock* a = d.pool.allocate(1000);
  PoolBlock* b = d.pool.allocate(3000);
  PoolBlock* c = d.pool.allocate(512);
  EXPECT_EQ(d.live.size(), 1u);  // one 2 MiB small segment
  EXPECT_EQ(a->segment, b->segment);
  EXPECT_EQ(b->offset, a->offset + 1024);
  EXPECT_EQ(c->offset, b->offset + 3072);
  EXPECT_EQ(d.pool.stats().allocated, 1024u + 3072u + 512u);
  d.pool.free(b);
  PoolBlock* e = d.pool.allocate(2000);  // best fit: b's hole
  EXPECT_EQ(e->offset, a->offset + 1024);
  d.pool.free(a);
  d.pool.free(e);
  d.pool.free(c);
  const PoolStats s = d.pool.stats();
  EXPECT_EQ(s.allocated, 0u);
  EXPECT_EQ(s.largest_free_block, 2 * kMiB);  // everything merged into one block
  EXPECT_EQ(s.fragmentation, 0.0);
  d.pool.release_cached();
  EXPECT_TRUE(d.live.empty());
  EXPECT_EQ(d.pool.stats().reserved, 0u);
  EXPECT_EQ(d.pool.stats().device_allocations, 1u);
}

TEST(BlockPool, LargeRequestsShareSegmentsAndHugeOnesGetTheirOwn) {
  FakeDriver d;
  PoolBlock* a = d.pool.allocate(3 * kMiB);
  PoolBlock* b = d.pool.allocate(4 * kMiB);
  EXPECT_EQ(a->segment, b->segment);  // one 20 MiB segment
  PoolBlock* c = d.pool.allocate(30 * kMiB);
  EXPECT_NE(c->segment, a->segment);
  EXPECT_EQ(d.pool.stats().reserved, 20 * kMiB + 30 * kMiB);
  EXPECT_EQ(d.pool.allocate(200 * kMiB), nullptr);  // over the segment limit
  for (PoolBlock* p : {a, b, c}) d.pool.free(p);
}

TEST(BlockPool, ReleasesCachedSegmentsBeforeRefusing) {
  FakeDriver d;
  d.refuse_over = 40 * kMiB;
  PoolBlock* a = d.pool.allocate(30 * kMiB);
  d.pool.free(a);  // cached, 30 MiB reserved
  PoolBlock* b = d.pool.allocate(36 * kMiB);  // needs the cached segment released first
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(d.pool.stats().reserved, 36 * kMiB);
  EXPECT_EQ(d.pool.allocate(10 * kMiB), nullptr);
  d.pool.free(b);
}

TEST(BlockPool, PeaksResetToTheCurrentValues) {
  FakeDriver d;
  PoolBlock* a = d.pool.allocate(4 * kMiB);
  d.pool.free(a);
  EXPECT_EQ(d.pool.stats().peak_allocated, 4 * kMiB);
  d.pool.reset_peaks();
  EXPECT_EQ(d.pool.stats().peak_allocated, 0u);
  EXPECT_EQ(d.pool.stats().peak_reserved, 20 * kMiB);
}

// A trace: "+ ID BYTES" and "- ID" lines (ADEPT_VK_ALLOC_TRACE) of one YOLO11n training step on Vulkan.
struct Event {
  bool alloc;
  uint64_t id, bytes;
};

std::vector<Event> read_trace(const std::string& path) {
  std::ifstream in(path);
  std::vector<Event> r;
  char op;
  uint64_t id;
  while (in >> op >> id) {
    Event e{op == '+', id, 0};
    if (e.alloc) in >> e.bytes;
    r.push_back(e);
  }
  return r;
}

TEST(BlockPool, ATrainingTraceWithDriftingSizesKeepsReservedMemoryFlat) {
  const std::vector<Event> trace = read_trace(ADEPT_SOURCE_DIR "/tests/cpp/data/yolo11n_step_alloc_trace.txt");
  ASSERT_GT(trace.size(), 1000u);
  uint64_t max_id = 0;
  for (const Event& e : trace) max_id = std::max(max_id, e.id);
  // Tensors alive after the step (weights, optimizer state, ...) are the ones never freed in the trace:
  // allocated once. Every other allocation repeats each step; a third of them (fixed) drift in size from
  // step to step by up to +-20%, as target-dependent tensors of a detection loss do.
  std::vector<char> freed(max_id + 1, 0), drifts(max_id + 1, 0);
  std::mt19937_64 rng(7);
  for (const Event& e : trace) {
    if (!e.alloc) freed[e.id] = 1;
    else drifts[e.id] = rng() % 3 == 0;
  }
  FakeDriver d;
  std::vector<PoolBlock*> live(max_id + 1, nullptr);
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  uint64_t reserved_at_warmup = 0;
  for (int step = 0; step < 2000; ++step) {
    for (const Event& e : trace) {
      if (!freed[e.id] && step > 0) continue;  // persistent: allocated in the first step only
      if (e.alloc) {
        const uint64_t bytes = drifts[e.id] ? static_cast<uint64_t>(static_cast<double>(e.bytes) * jitter(rng)) + 1 : e.bytes;
        live[e.id] = d.pool.allocate(bytes);
        ASSERT_NE(live[e.id], nullptr);
      } else if (live[e.id]) {  // (frees of tensors from before the trace are not ours)
        d.pool.free(live[e.id]);
        live[e.id] = nullptr;
      }
    }
    if (step == 99) reserved_at_warmup = d.pool.stats().reserved;
  }
  const PoolStats s = d.pool.stats();
  EXPECT_EQ(s.reserved, reserved_at_warmup) << "reserved memory grew after warm-up";
  EXPECT_LE(s.peak_reserved, reserved_at_warmup);
  // The cache holds what a step's tensors need at their peak, plus at most a quarter and two large
  // segments (20 MiB granularity; this trace is a 64 px step with a 27 MB peak).
  EXPECT_LE(static_cast<double>(s.peak_reserved), 1.25 * static_cast<double>(s.peak_allocated) + 40.0 * kMiB)
      << s.peak_reserved << " reserved for a peak of " << s.peak_allocated << " allocated";
  for (PoolBlock* b : live)
    if (b) d.pool.free(b);
}

}  // namespace
}  // namespace adept::vk
#endif  // ADEPT_WITH_VULKAN
