// The CPU caching allocator (cpu_cache.h).
#include "core/cpu_cache.h"

#include <pthread.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
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

uint64_t default_limit() {
#ifdef ADEPT_CPU_CACHE_ASAN
  return 0;
#else
  if (const char* env = std::getenv("ADEPT_CPU_CACHE_LIMIT_MB"); env && *env) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long mib = std::strtoull(env, &end, 10);
    ADEPT_CHECK(*end == '\0' && errno == 0 && env[0] != '-' && mib <= (UINT64_MAX >> 20), ValueError,
                "ADEPT_CPU_CACHE_LIMIT_MB: expected a whole number of MiB (0 disables the CPU cache), got '{}'", env);
    return static_cast<uint64_t>(mib) << 20;
  }
  // A quarter of the physical memory: a YOLO11n step at batch 8 x 640 frees ~2.3 GiB that the next
  // step asks for again, so a smaller fixed cap would evict (and fault in again) most of it.
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 4 : uint64_t{1} << 30;
#endif
}

class Cache {
 public:
  Cache() : limit_(default_limit()) {
    pthread_atfork([] { instance().mu_.lock(); }, [] { instance().mu_.unlock(); },
                   [] { instance().mu_.unlock(); });
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
  uint64_t cached_ = 0, limit_ = 0, hits_ = 0, misses_ = 0;
};

}  // namespace

size_t round_size(size_t nbytes) {
  if (nbytes < kMinCachedBytes) return (nbytes + 63) / 64 * 64;
  const size_t step = std::bit_floor(nbytes) / 8;
  return (nbytes + step - 1) / step * step;
}

void* allocate(size_t rounded) { return Cache::instance().allocate(rounded); }
void release(void* p, size_t rounded) { Cache::instance().release(p, rounded); }

}  // namespace cpu_cache

CpuCacheStats cpu_cache_stats() { return cpu_cache::Cache::instance().stats(); }
void cpu_empty_cache() { cpu_cache::Cache::instance().empty(); }
void set_cpu_cache_limit(uint64_t bytes) { cpu_cache::Cache::instance().set_limit(bytes); }

}  // namespace adept
