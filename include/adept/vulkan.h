// The Vulkan compute backend: device discovery, synchronisation and memory statistics.
// Tensors live on "vulkan:N" devices (`x.to("vulkan")`); ops without a Vulkan kernel raise
// NotImplementedForDevice naming the op. Environment: ADEPT_VULKAN_DEVICE picks the default
// device index, ADEPT_VK_VALIDATION=1 enables the Khronos validation layer,
// ADEPT_VK_DISABLE_COOPMAT=1 turns off the cooperative-matrix matmul path, ADEPT_VK_MEMORY_LIMIT=bytes
// caps the device memory the allocator reserves, ADEPT_VK_TIMEOUT=seconds (default 600) bounds every
// wait for the device (a stuck device raises DeviceError naming the last op instead of hanging).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace adept {

/// Limits and features of one Vulkan physical device.
struct VulkanDeviceInfo {
  int index = 0;
  std::string name;
  std::string driver;
  /// VkPhysicalDeviceIDProperties::deviceUUID as 8-4-4-4-12 hex digits (on NVIDIA the UUID that nvidia-smi
  /// and CUDA report, after "GPU-"): stable across processes, unlike the enumeration order.
  std::string uuid;
  /// VkPhysicalDeviceType: "discrete", "integrated", "virtual", "cpu" (lavapipe, SwiftShader) or "other".
  std::string device_type;
  uint32_t api_version = 0;
  uint32_t subgroup_size = 0;
  uint32_t max_push_constants = 0;
  uint64_t max_storage_buffer_range = 0;
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_shared_memory = 0;
  uint64_t device_local_bytes = 0;
  bool float16 = false;          // shaderFloat16 + 16-bit storage
  bool int64 = false;            // shaderInt64
  bool float64 = false;          // shaderFloat64 (float64 tensors; without it they raise)
  bool int16 = false;            // shaderInt16 (bfloat16 conversions)
  bool int8_storage = false;     // 8-bit storage (bool tensors)
  bool cooperative_matrix = false;  // float16 matmul on VK_NV_cooperative_matrix is in use
  /// Driver quirk: an invocation's loop iterations (all loops together) beyond this are cut short
  /// (llvmpipe); 0 = no limit. Kernels split their work to stay well below it.
  uint32_t loop_iteration_limit = 0;
  std::string str() const;
};

/// True when a Vulkan driver with at least one device is present.
bool vulkan_is_available();
/// All Vulkan devices with their limits (empty when none).
std::vector<VulkanDeviceInfo> vulkan_devices();
/// The index of the device a process with node-local rank `local_rank` uses in a data-parallel run: the devices
/// ordered by UUID, taken round-robin (local_rank % count), so that every process of a node agrees on the
/// mapping whatever order the driver enumerates them in. DeviceError without a Vulkan device.
int vulkan_device_for_local_rank(int local_rank);
/// Blocks until all work queued on `vulkan:index` (-1 = default) has finished.
void vulkan_synchronize(int index = -1);
/// Waits until every Vulkan device this process has opened has finished the work already submitted to it,
/// without submitting more (no-op when none is open, in a DataLoader worker, or for a device whose command
/// stream another thread holds); never throws. For leaving the process on an error: the driver's exit
/// handlers must not run under work still in flight (lavapipe crashed or hung compiling a pipeline there).
/// The `adept` command calls it before exiting on an error, and the Python module at interpreter exit.
void vulkan_wait_idle() noexcept;
/// Submits the work recorded so far on `vulkan:index` without waiting for it (work is otherwise
/// submitted in batches of a few hundred commands, or when the host waits).
void vulkan_flush(int index = -1);

/// One row of a GPU profile: the kernels recorded with the same shader variant (`kernel`, "copy" for
/// buffer copies), op name, profile label (adept/profiler.h) and direction (`backward`: recorded while
/// the autograd engine ran the label's backward).
struct VulkanProfileRow {
  std::string kernel, op, scope;
  bool backward = false;
  uint64_t count = 0;       // dispatches (or copies)
  double device_ms = 0;     // summed GPU time between the timestamps written around each one
  double host_ms = 0;       // summed host time spent recording them (descriptor set, commands)
};
/// What vulkan_profiler_stop returns: the rows (largest device_ms first) and their totals; `batches` is
/// the number of command buffers submitted while profiling.
struct VulkanProfile {
  std::vector<VulkanProfileRow> rows;
  uint64_t dispatches = 0, copies = 0, batches = 0;
  double device_ms = 0, host_ms = 0;
};
/// Starts profiling `vulkan:index` (-1 = default): waits for queued work, then writes a timestamp query
/// before and after every dispatch and copy (each command already waits for the previous one, so the
/// difference is that command's GPU time). Raises NotImplementedForDevice when the queue has no
/// timestamps (timestampValidBits 0), Error when a profile is already running.
void vulkan_profiler_start(int index = -1);
/// Waits for queued work, stops profiling and returns the profile since vulkan_profiler_start. Raises
/// Error when no profile is running.
VulkanProfile vulkan_profiler_stop(int index = -1);

/// Validation-layer errors reported so far (ADEPT_VK_VALIDATION=1); tests require 0.
uint64_t vulkan_validation_error_count();

/// Device-to-host copies from `vulkan:index` (-1 = default) so far: .cpu(), item(), and ops that read
/// back a count or an index bound. Each waits for all queued work; a training step should do few.
uint64_t vulkan_download_count(int index = -1);
/// Times the host has drained the queue of `vulkan:index` (-1 = default) so far: every download
/// (.cpu(), item()), vulkan_synchronize() and empty_cache() submits and waits for all queued work.
/// Waits that only keep the host at most a few command batches ahead of the device are not counted.
uint64_t vulkan_sync_count(int index = -1);

/// The caching allocator's statistics (torch.cuda.memory_stats' quantities), bytes unless said otherwise:
/// `allocated` by live tensors (rounded block sizes), `reserved` from the driver (segments), their peaks
/// since the device was first used or vulkan_reset_peak_memory_stats, the `segments` held, the driver
/// allocations made so far (`device_allocations`), the `largest_free_block` of the cache and its
/// `fragmentation` (1 - largest free block / free bytes; 0 when the free memory is one block or none).
struct VulkanMemoryStats {
  uint64_t allocated = 0, reserved = 0, peak = 0, peak_reserved = 0;
  uint64_t segments = 0, device_allocations = 0, largest_free_block = 0;
  double fragmentation = 0;
};
VulkanMemoryStats vulkan_memory_stats(int index = -1);
/// Starts the peaks of vulkan_memory_stats afresh at the current values (torch.cuda.reset_peak_memory_stats).
void vulkan_reset_peak_memory_stats(int index = -1);
/// Returns cached, unused device memory blocks to the driver.
void vulkan_empty_cache(int index = -1);
/// Caps the memory the allocator of `vulkan:index` reserves from the driver at `fraction` of the device's
/// local memory (torch.cuda.set_per_process_memory_fraction); a request beyond it raises OutOfMemoryError
/// naming the requested, allocated and reserved bytes. 1 (the default) means no cap below the device's
/// own. Throws ValueError for a fraction outside [0, 1]. The environment variable ADEPT_VK_MEMORY_LIMIT
/// (bytes) sets a cap when the device is first used.
void vulkan_set_per_process_memory_fraction(double fraction, int index = -1);

/// The float16 cooperative-matrix ceiling of `vulkan:index` in TFLOP/s: the best of 5 timed runs (host
/// clock, one wait each) of a kernel whose subgroups only multiply register-resident 16x16x16 fragments
/// (float32 accumulators, 8 independent ones per subgroup), the bound for the kernels built on
/// VK_NV_cooperative_matrix. NotImplementedForDevice when the device has no cooperative matrices in use.
double vulkan_cooperative_matrix_peak(int index = -1);

}  // namespace adept
