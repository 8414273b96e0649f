// adept.vulkan: Vulkan device discovery, synchronisation and memory statistics. In a build
// without the Vulkan backend only is_available() (False) and device_count() (0) exist.
#include "common.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif

namespace adept::python {

void init_vulkan(py::module_& parent) {
  py::module_ m = parent.def_submodule("vulkan", "The Vulkan compute backend (torch.cuda's role).");
#ifdef ADEPT_WITH_VULKAN
  m.def("is_available", &vulkan_is_available, "True when a Vulkan device is present.");
  m.def("device_count", [] { return static_cast<int>(vulkan_devices().size()); });
  m.def("devices", [] {
    py::list out;
    for (const auto& d : vulkan_devices()) {
      py::dict e;
      e["index"] = d.index;
      e["name"] = d.name;
      e["uuid"] = d.uuid;
      e["driver"] = d.driver;
      e["device_type"] = d.device_type;
      e["subgroup_size"] = d.subgroup_size;
      e["max_push_constants"] = d.max_push_constants;
      e["max_storage_buffer_range"] = d.max_storage_buffer_range;
      e["max_shared_memory"] = d.max_shared_memory;
      e["device_local_bytes"] = d.device_local_bytes;
      e["float16"] = d.float16;
      e["int64"] = d.int64;
      e["float64"] = d.float64;
      e["cooperative_matrix"] = d.cooperative_matrix;
      e["description"] = d.str();
      out.append(e);
    }
    return out;
  }, "Each device's limits and features as a dict.");
  m.def("synchronize", &vulkan_synchronize, py::arg("device") = -1, "Waits for all queued work on the device.");
  m.def("wait_idle", &vulkan_wait_idle,
        "Waits until every opened device has finished the work already submitted (registered with atexit by "
        "`import adept`, so the driver's exit handlers never run under work in flight).");
  m.def("memory_stats", [](int index) {
    auto s = vulkan_memory_stats(index);
    py::dict d;
    d["allocated_bytes"] = s.allocated;
    d["reserved_bytes"] = s.reserved;
    d["peak_allocated_bytes"] = s.peak;
    d["peak_reserved_bytes"] = s.peak_reserved;
    d["segments"] = s.segments;
    d["device_allocations"] = s.device_allocations;
    d["largest_free_block_bytes"] = s.largest_free_block;
    d["fragmentation"] = s.fragmentation;
    return d;
  }, py::arg("device") = -1,
        "The caching allocator's statistics: bytes allocated by tensors and reserved from the driver, their "
        "peaks, segments held, driver allocations made, the largest cached free block and the fragmentation "
        "(1 - largest free block / free bytes).");
  m.def("reset_peak_memory_stats", &vulkan_reset_peak_memory_stats, py::arg("device") = -1,
        "Starts the peak statistics afresh (torch.cuda.reset_peak_memory_stats).");
  m.def("sync_count", &vulkan_sync_count, py::arg("device") = -1,
        "Times the host has waited for all queued work on the device (downloads, synchronize).");
  m.def("empty_cache", &vulkan_empty_cache, py::arg("device") = -1, "Returns unused cached memory to the driver.");
  m.def("set_per_process_memory_fraction", &vulkan_set_per_process_memory_fraction, py::arg("fraction"),
        py::arg("device") = -1,
        "Caps the memory the device's allocator reserves at `fraction` of its local memory "
        "(torch.cuda.set_per_process_memory_fraction); beyond it allocations raise MemoryError.");
  m.def("profiler_start", &vulkan_profiler_start, py::arg("device") = -1,
        "Waits for queued work, then writes a GPU timestamp before and after every kernel and copy recorded on "
        "the device until profiler_stop(). Raises NotImplementedError when the queue has no timestamps, "
        "RuntimeError when a profile is running.");
  m.def("profiler_stop", [](int index) {
    const VulkanProfile p = vulkan_profiler_stop(index);
    py::list rows;
    for (const auto& r : p.rows) {
      py::dict d;
      d["kernel"] = r.kernel;
      d["op"] = r.op;
      d["scope"] = r.scope;
      d["backward"] = r.backward;
      d["count"] = r.count;
      d["device_ms"] = r.device_ms;
      d["host_ms"] = r.host_ms;
      rows.append(d);
    }
    py::dict out;
    out["rows"] = rows;
    out["dispatches"] = p.dispatches;
    out["copies"] = p.copies;
    out["batches"] = p.batches;
    out["device_ms"] = p.device_ms;
    out["host_ms"] = p.host_ms;
    return out;
  }, py::arg("device") = -1,
        "Waits for queued work and stops profiling: {'rows': [{kernel (shader variant, 'copy'), op, scope "
        "(adept.profiler.record_function labels), backward, count, device_ms (GPU milliseconds), host_ms "
        "(recording)}], largest device_ms first, 'dispatches', 'copies', 'batches', 'device_ms', 'host_ms'}. "
        "Raises RuntimeError when no profile is running.");
#else
  m.def("is_available", [] { return false; }, "This build has no Vulkan backend.");
  m.def("device_count", [] { return 0; });
#endif
}

}  // namespace adept::python
