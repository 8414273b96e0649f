// The CPU caching allocator (src/core/cpu_cache.h, adept/storage.h): size classes, reuse of freed
// buffers, the cap on cached bytes, empty_cache, and allocation from many threads at once.
#include <gtest/gtest.h>

#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "adept/adept.h"
#include "core/cpu_cache.h"

namespace adept {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Sets the cap for one test and restores the previous one (ASan builds default to 0).
class CpuCache : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = cpu_cache_stats().limit;
    cpu_empty_cache();
    set_cpu_cache_limit(64 * kMiB);
  }
  void TearDown() override {
    cpu_empty_cache();
    set_cpu_cache_limit(saved_);
  }
  uint64_t saved_ = 0;
};

TEST(CpuCacheRounding, SmallToCacheLinesLargeToAnEighthOfTheirPowerOfTwo) {
  EXPECT_EQ(cpu_cache::round_size(0), 0u);
  EXPECT_EQ(cpu_cache::round_size(1), 64u);
  EXPECT_EQ(cpu_cache::round_size(65), 128u);
  EXPECT_EQ(cpu_cache::round_size(cpu_cache::kMinCachedBytes), cpu_cache::kMinCachedBytes);
  EXPECT_EQ(cpu_cache::round_size(kMiB), static_cast<size_t>(kMiB));
  EXPECT_EQ(cpu_cache::round_size(kMiB + 1), static_cast<size_t>(kMiB + kMiB / 8));
  EXPECT_EQ(cpu_cache::round_size(3 * kMiB + 5), static_cast<size_t>(3 * kMiB + kMiB / 4));
  for (size_t n = 1000; n < (size_t{1} << 30); n = n * 3 + 7) {
    const size_t r = cpu_cache::round_size(n);
    EXPECT_GE(r, n);
    EXPECT_LE(static_cast<double>(r), n < cpu_cache::kMinCachedBytes ? n + 63.0 : 1.125 * static_cast<double>(n));
    EXPECT_EQ(r % 64, 0u) << n;
    EXPECT_EQ(cpu_cache::round_size(r), r) << n;  // a class is its own class
  }
  // Sizes whose class would pass SIZE_MAX: SIZE_MAX, which no allocation satisfies (not a wrapped 0).
  EXPECT_EQ(cpu_cache::round_size(SIZE_MAX), SIZE_MAX);
  EXPECT_EQ(cpu_cache::round_size(SIZE_MAX - (size_t{1} << 59)), SIZE_MAX);
}

TEST_F(CpuCache, AFreedBufferServesTheNextRequestOfItsClass) {
  const CpuCacheStats before = cpu_cache_stats();
  void* first = nullptr;
  {
    Tensor a = empty({kMiB / 4 + 3}, TensorOptions(kFloat32));  // 1 MiB + 12 bytes: class 1.125 MiB
    first = a.data_ptr();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  }
  EXPECT_EQ(cpu_cache_stats().cached, static_cast<uint64_t>(kMiB + kMiB / 8));
  EXPECT_EQ(cpu_cache_stats().cached_blocks, 1u);
  Tensor b = zeros({kMiB / 4 + 100}, TensorOptions(kFloat32));  // same class
  EXPECT_EQ(b.data_ptr(), first);
  EXPECT_EQ(b.sum().item<double>(), 0.0);  // reused memory is filled like fresh memory
  EXPECT_EQ(cpu_cache_stats().cached, 0u);
  EXPECT_EQ(cpu_cache_stats().hits, before.hits + 1);
  EXPECT_GE(cpu_cache_stats().misses, before.misses + 1);
}

TEST_F(CpuCache, SmallBuffersAreNotCached) {
  { Tensor a = empty({100}, TensorOptions(kFloat32)); }
  EXPECT_EQ(cpu_cache_stats().cached, 0u);
}

TEST_F(CpuCache, CachedBytesStayUnderTheLimit) {
  set_cpu_cache_limit(3 * kMiB);
  {
    std::vector<Tensor> ts;
    for (int i = 0; i < 5; ++i) ts.push_back(empty({kMiB / 4}, TensorOptions(kFloat32)));  // 1 MiB each
  }
  EXPECT_EQ(cpu_cache_stats().cached, static_cast<uint64_t>(3 * kMiB));
  // A larger class evicts the smaller ones to fit.
  { Tensor big = empty({kMiB / 2}, TensorOptions(kFloat32)); }
  EXPECT_LE(cpu_cache_stats().cached, static_cast<uint64_t>(3 * kMiB));
  EXPECT_EQ(cpu_cache_stats().cached, static_cast<uint64_t>(3 * kMiB));  // 2 MiB + one 1 MiB block
  // Over the limit on its own: freed at once.
  { Tensor huge = empty({kMiB}, TensorOptions(kFloat32)); }
  EXPECT_LE(cpu_cache_stats().cached, static_cast<uint64_t>(3 * kMiB));
  set_cpu_cache_limit(kMiB);
  EXPECT_LE(cpu_cache_stats().cached, static_cast<uint64_t>(kMiB));
  EXPECT_EQ(cpu_cache_stats().limit, static_cast<uint64_t>(kMiB));
  cpu_empty_cache();
  EXPECT_EQ(cpu_cache_stats().cached, 0u);
  EXPECT_EQ(cpu_cache_stats().cached_blocks, 0u);
}

TEST_F(CpuCache, ZeroLimitDisablesIt) {
  set_cpu_cache_limit(0);
  { Tensor a = empty({kMiB}, TensorOptions(kFloat32)); }
  EXPECT_EQ(cpu_cache_stats().cached, 0u);
}

TEST_F(CpuCache, AForkedChildCachesNothingUnlessTheVariableSaysSo) {
  if (std::getenv("ADEPT_CPU_CACHE_LIMIT_MB")) GTEST_SKIP() << "ADEPT_CPU_CACHE_LIMIT_MB sets the child's limit";
  { Tensor a = empty({kMiB / 4}, TensorOptions(kFloat32)); }  // one cached 1 MiB block, inherited
  ASSERT_EQ(cpu_cache_stats().cached, static_cast<uint64_t>(kMiB));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = cpu_cache_stats().limit == 0 ? 0 : 1;
    { Tensor b = empty({kMiB / 4}, TensorOptions(kFloat32)); }  // reuses the inherited block, then frees it
    { Tensor c = empty({kMiB / 2}, TensorOptions(kFloat32)); }
    if (cpu_cache_stats().cached != 0) code |= 2;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the child's limit is not 0; 2: the child cached a buffer";
  EXPECT_EQ(cpu_cache_stats().limit, static_cast<uint64_t>(64 * kMiB));  // the parent's is untouched
  EXPECT_EQ(cpu_cache_stats().cached, static_cast<uint64_t>(kMiB));
}

TEST_F(CpuCache, ManyThreadsAllocatingAndFreeing) {
  const int threads = std::max(2, omp_get_max_threads());
#pragma omp parallel for num_threads(threads) schedule(dynamic)
  for (int i = 0; i < 400; ++i) {
    Tensor t = full({(i % 7 + 1) * 20000}, static_cast<double>(i), TensorOptions(kFloat32));
    Tensor u = t * 2;
    if (u.data_ptr<float>()[0] != 2.0f * static_cast<float>(i)) ADD_FAILURE() << "iteration " << i;
  }
  const CpuCacheStats s = cpu_cache_stats();
  EXPECT_LE(s.cached, s.limit);
  EXPECT_GT(s.cached_blocks, 0u);
}

}  // namespace
}  // namespace adept
