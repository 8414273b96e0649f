// The CPU caching allocator behind Storage::allocate (adept/storage.h documents its public face).
//
// Large CPU buffers come from glibc's mmap path, so every training step used to fault in and zero
// its activations' pages afresh (~10 % of a YOLO11n step). Here a freed buffer of at least
// kMinCachedBytes is kept in a free list of its size class and handed to the next request of that
// class. Requests are rounded up to an eighth of their power of two (at most 12.5 % more), so sizes
// that drift a little from step to step still meet. Blocks are never split or merged: a cached block
// is one malloc'd buffer that can go back to the system on its own. The cached bytes never exceed
// the limit: a release that would exceed it first evicts other classes' blocks (largest first), and
// frees its own buffer if that is not enough. Thread-safe; fork-safe (the lock is held across fork; a
// forked child keeps what it inherited for reuse but caches nothing new unless ADEPT_CPU_CACHE_LIMIT_MB
// is set).
#pragma once
#include <cstddef>
#include <cstdint>

namespace adept::cpu_cache {

/// Buffers smaller than this bypass the cache (glibc's own bins serve them without page faults).
constexpr size_t kMinCachedBytes = size_t{64} << 10;

/// The bytes a request of `nbytes` occupies: a multiple of 64 below kMinCachedBytes, else rounded up
/// to an eighth of its power of two. round_size(0) == 0.
size_t round_size(size_t nbytes);
/// A 64-byte aligned buffer of `rounded` (= round_size(n)) bytes, reused from the cache when one is
/// there; nullptr when the system has none even after the cache was emptied.
void* allocate(size_t rounded);
/// Gives back a buffer from allocate(rounded): cached, or freed when it may not be cached.
void release(void* p, size_t rounded);

}  // namespace adept::cpu_cache
