// Storage: a refcounted byte buffer on one device, shared by a tensor and all its views. Its
// version counter is bumped by every in-place write, so autograd can detect that a tensor saved
// for backward was modified through any view.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "adept/device.h"

namespace adept {

class Storage {
 public:
  using Deleter = std::function<void(void*)>;
  /// Allocates `nbytes` on `device` through that device's allocator (throws OutOfMemoryError).
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device);
  /// Wraps memory owned elsewhere (NumPy array, DLPack tensor); `deleter` runs when the last view dies.
  static std::shared_ptr<Storage> wrap(void* data, size_t nbytes, Device device, Deleter deleter);

  Storage(void* data, size_t nbytes, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(std::move(deleter)) {}
  ~Storage() { if (deleter_) deleter_(data_); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  uint64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
  std::atomic<uint64_t> version_{0};
};

/// Allocator of a non-CPU device type (registered by its backend when the library loads).
using DeviceAllocator = std::shared_ptr<Storage> (*)(size_t nbytes, Device device);
void register_device_allocator(DeviceType type, DeviceAllocator fn);

/// The CPU caching allocator's counters. CPU buffers of 64 KiB and more are kept when freed and
/// handed to the next request of the same size class (a request is rounded up to an eighth of its
/// power of two), so a training loop stops faulting in fresh pages every step. Bytes unless named
/// otherwise.
struct CpuCacheStats {
  uint64_t cached = 0;         // freed buffers held for reuse
  uint64_t cached_blocks = 0;  // how many
  uint64_t limit = 0;          // the most `cached` may reach (set_cpu_cache_limit)
  uint64_t hits = 0;           // requests served from the cache since the process started
  uint64_t misses = 0;         // cacheable requests that went to the system
};
CpuCacheStats cpu_cache_stats();
/// Frees every cached CPU buffer (buffers in use are untouched).
void cpu_empty_cache();
/// Caps the cached bytes (0 disables the cache), evicting what exceeds the new cap. The default is
/// the environment variable ADEPT_CPU_CACHE_LIMIT_MB (MiB), else a quarter of the physical memory (of the
/// cgroup's memory.max where that is lower); a forked child (a DataLoader worker) caches nothing new unless
/// the variable is set. Builds with AddressSanitizer default to 0 so that a use after free is still caught.
/// A malformed variable raises ValueError at the first CPU allocation.
void set_cpu_cache_limit(uint64_t bytes);

}  // namespace adept
