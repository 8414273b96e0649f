// adept.cpu: the CPU caching allocator's statistics and controls (adept/storage.h).
#include "adept/storage.h"
#include "common.h"

namespace adept::python {

void init_cpu(py::module_& parent) {
  py::module_ m = parent.def_submodule("cpu", "The CPU device: its caching allocator.");
  m.def("memory_stats", [] {
    const CpuCacheStats s = cpu_cache_stats();
    py::dict d;
    d["cached_bytes"] = s.cached;
    d["cached_blocks"] = s.cached_blocks;
    d["cache_limit_bytes"] = s.limit;
    d["cache_hits"] = s.hits;
    d["cache_misses"] = s.misses;
    return d;
  }, "The CPU caching allocator's statistics: freed buffers held for reuse (bytes, blocks), the cap on them, "
     "and the cacheable requests served from the cache (hits) or from the system (misses) so far.");
  m.def("empty_cache", &cpu_empty_cache, "Frees every cached CPU buffer (buffers in use are untouched).");
  m.def("set_cache_limit", [](int64_t bytes) {
    ADEPT_CHECK(bytes >= 0, ValueError, "adept.cpu.set_cache_limit: expected a byte count >= 0, got {}", bytes);
    set_cpu_cache_limit(static_cast<uint64_t>(bytes));
  }, py::arg("bytes"),
        "Caps the bytes the CPU caching allocator keeps for reuse (0 disables it), freeing what exceeds the new "
        "cap. The default is ADEPT_CPU_CACHE_LIMIT_MB, else a quarter of the memory (the cgroup's limit where "
        "lower); forked processes (DataLoader workers) start with the cache off unless that variable is set.");
}

}  // namespace adept::python
