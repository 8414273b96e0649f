// The CPU caching allocator (cpu_cache.h).
#include "core/cpu_cache.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "adept/errors.h"
#include "adept/storage.h"

#if defined(__SANITIZE_ADDRESS__)
#define ADEPT_CPU_CACHE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADEPT_CPU_CACHE_ASAN 1
#endif
#endif

namespace adept {
namespace cpu_cache {
namespace {

// ADEPT_CPU_CACHE_LIMIT_MB when given (a whole number of MiB).
bool env_limit(uint64_t& bytes) {
  const char* env = std::getenv("ADEPT_CPU_CACHE_LIMIT_MB");
  if (!env || !*env) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long mib = std::strtoull(env, &end, 10);
  ADEPT_CHECK(*end == '\0' && errno == 0 && env[0] != '-' && mib <= (UINT64_MAX >> 20), ValueError,
              "ADEPT_CPU_CACHE_LIMIT_MB: expected a whole number of MiB (0 disables the CPU cache), got '{}'", env);
  bytes = static_cast<uint64_t>(mib) << 20;
  return true;
}

// The memory this process may use: the physical memory, or the cgroup (v2) limit where lower (a container).
uint64_t usable_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : uint64_t{4} << 30;
  if (std::FILE* f = std::fopen("/sys/fs/cgroup/memory.max", "r")) {
    unsigned long long v = 0;
    if (std::fscanf(f, "%llu", &v) == 1 && v > 0 && v < bytes) bytes = v;  // "max" (no limit) does not parse
    std::fclose(f);
  }
  return bytes;
}

// The process's cap and the cap a forked child (a DataLoader worker) gets, from one read of the variable.
struct Limits {
  uint64_t process, child;
};

Limits initial_limits() {
#ifdef ADEPT_CPU_CACHE_ASAN
  return {0, 0};
#else
  if (uint64_t bytes = 0; env_limit(bytes)) return {bytes, bytes};
  // A quarter of the physical memory: a YOLO11n step at batch 8 x 640 frees ~2.3 GiB that the next
  // step asks for again, so a smaller fixed cap would evict (and fault in again) most of it. A child
  // caches nothing new: each would otherwise keep up to that cap of its own short-lived buffers
  // (measured: ~0.5 GiB per worker).
  return {usable_memory() / 4, 0};
#endif
}

class Cache {
 public:
  Cache() {
    const Limits l = initial_limits();
    limit_ = l.process;
    child_limit_ = l.child;
    // The lock is held across fork. The child keeps the blocks it inherited (a copy-on-write view of the
    // parent's) for reuse but caches no more unless ADEPT_CPU_CACHE_LIMIT_MB asks for it; a malformed value
    // already failed in the parent, so this cannot throw.
    pthread_atfork([] { instance().mu_.lock(); }, [] { instance().mu_.unlock(); },
                   [] {
                     Cache& c = instance();
                     c.limit_ = std::min(c.limit_, c.child_limit_);
                     c.mu_.unlock();
                   });
  }
  static Cache& instance() {
    static Cache* c = new Cache();  // never destroyed: buffers may be released during static teardown
    return *c;
  }

  void* allocate(size_t rounded) {
    if (rounded >= kMinCachedBytes) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(rounded);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= rounded;
        ++hits_;
        return p;
      }
      ++misses_;
    }
    void* p = std::aligned_alloc(64, rounded);
    if (!p) {
      empty();
      p = std::aligned_alloc(64, rounded);
    }
    return p;
  }

  void release(void* p, size_t rounded) {
    if (rounded >= kMinCachedBytes) {
      std::lock_guard<std::mutex> lock(mu_);
      if (rounded <= limit_) {
        evict_locked(limit_ - rounded, rounded);  // stale classes make room; this class's blocks stay
        if (cached_ + rounded <= limit_) {
          free_[rounded].push_back(p);
          cached_ += rounded;
          return;
        }
      }
    }
    std::free(p);
  }

  void empty() {
    std::lock_guard<std::mutex> lock(mu_);
    evict_locked(0, 0);
  }

  void set_limit(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    limit_ = bytes;
    evict_locked(limit_, 0);
  }

  CpuCacheStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    CpuCacheStats s;
    s.cached = cached_;
    for (const auto& [size, blocks] : free_) s.cached_blocks += blocks.size();
    s.limit = limit_;
    s.hits = hits_;
    s.misses = misses_;
    return s;
  }

 private:
  // Frees cached blocks other than those of class `skip`, largest class first, until at most `target`
  // bytes stay.
  void evict_locked(uint64_t target, size_t skip) {
    for (auto it = free_.rbegin(); it != free_.rend() && cached_ > target; ++it) {
      if (it->first == skip) continue;
      while (!it->second.empty() && cached_ > target) {
        std::free(it->second.back());
        it->second.pop_back();
        cached_ -= it->first;
      }
    }
  }

  std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // size class -> cached buffers
  uint64_t cached_ = 0, limit_ = 0, child_limit_ = 0, hits_ = 0, misses_ = 0;
};

}  // namespace

size_t round_size(size_t nbytes) {
  if (nbytes < kMinCachedBytes) return (nbytes + 63) / 64 * 64;
  const size_t step = std::bit_floor(nbytes) / 8;
  // Past the largest class (no system has that memory): SIZE_MAX, which no allocation satisfies.
  if (nbytes > SIZE_MAX - (step - 1)) return SIZE_MAX;
  return (nbytes + step - 1) / step * step;
}

void* allocate(size_t rounded) { return Cache::instance().allocate(rounded); }
void release(void* p, size_t rounded) { Cache::instance().release(p, rounded); }

}  // namespace cpu_cache

CpuCacheStats cpu_cache_stats() { return cpu_cache::Cache::instance().stats(); }
void cpu_empty_cache() { cpu_cache::Cache::instance().empty(); }
void set_cpu_cache_limit(uint64_t bytes) { cpu_cache::Cache::instance().set_limit(bytes); }

}  // namespace adept
