// Command recording and submission. Work is recorded into the current batch's command buffer
// (with a full compute/transfer barrier between commands) and submitted when the host needs a
// result (download, synchronize), or when the batch is full. Each batch has a serial; resources
// a batch uses are released only after its fence signals.
#pragma once
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "adept/vulkan.h"

namespace adept::vk {

class Context;
struct PoolBlock;
using Chunk = PoolBlock;

/// A buffer range bound to a shader binding.
struct BufferRange {
  VkBuffer buffer;
  VkDeviceSize offset;
  VkDeviceSize range;
};

/// One profiled command of a batch: what it was and the label it was recorded under.
struct Sample {
  const char* op;
  const char* kernel;
  const std::string* scope;
  bool backward;
  double host_ms;
};

class Stream {
 public:
  explicit Stream(Context& ctx);
  ~Stream();
  /// Copies `words` into this batch's metadata buffer and returns its range (binding 0).
  BufferRange push_meta(const std::vector<int32_t>& words);
  /// Records a compute dispatch of op `op` (a static string, named if the device stalls) with the shader
  /// variant `kernel` (a string that outlives the stream, named in profiles): binds `buffers`
  /// (binding 0..n-1), pushes constants.
  void dispatch(const char* op, const char* kernel, VkPipeline pipeline, VkPipelineLayout layout,
                VkDescriptorSetLayout set_layout, const std::vector<BufferRange>& buffers, const void* push,
                uint32_t push_size, uint32_t gx, uint32_t gy = 1, uint32_t gz = 1);
  void copy(const char* op, const BufferRange& src, const BufferRange& dst, VkDeviceSize bytes);
  /// Runs `fn` once the current batch has completed (e.g. to free a staging buffer).
  void on_complete(std::function<void()> fn);
  /// Serial of the batch now recording (work recorded so far completes by this serial).
  uint64_t recording_serial() const { return next_serial_; }
  /// Submits the recording batch (if any) and returns its serial.
  uint64_t flush();
  /// Blocks until batch `serial` has completed; throws DeviceError naming the batch's last op when the
  /// device has not finished it within the timeout (ADEPT_VK_TIMEOUT seconds, default 600).
  void wait(uint64_t serial);
  /// flush() + wait for everything (counted: sync_count()).
  void synchronize();
  /// synchronize() calls so far (vulkan_sync_count).
  uint64_t sync_count() const { return syncs_.load(); }
  uint64_t completed_serial() const { return completed_; }
  /// The op of the most recent dispatch or copy ("" before any).
  const char* last_op() const { return last_op_; }
  /// vulkan_profiler_start / vulkan_profiler_stop (both wait for the queued work first).
  void start_profile();
  VulkanProfile stop_profile();

 private:
  struct Batch {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    Chunk* meta = nullptr;
    VkDeviceSize meta_used = 0;
    uint32_t sets = 0;
    uint64_t serial = 0;
    const char* last_op = "";  // the last op recorded (named when the device stalls)
    std::vector<std::function<void()>> done;
    VkQueryPool queries = VK_NULL_HANDLE;  // two timestamps per sample while profiling
    std::vector<Sample> samples;
  };
  Batch& recording();
  void barrier(VkCommandBuffer cmd);
  // While profiling: the timestamp before a command (returns the sample's index) and after it.
  size_t profile_begin(Batch& b, const char* op, const char* kernel);
  void profile_end(Batch& b, size_t sample, double host_ms);
  void collect_profile(Batch& b);
  void retire(Batch& b);
  void poll();

  Context& ctx_;
  VkCommandPool cmd_pool_ = VK_NULL_HANDLE;
  std::unique_ptr<Batch> current_;
  std::deque<std::unique_ptr<Batch>> in_flight_;
  std::vector<std::unique_ptr<Batch>> spare_;
  uint64_t next_serial_ = 1;
  uint64_t completed_ = 0;
  const char* last_op_ = "";
  std::atomic<uint64_t> syncs_{0};
  // Profile rows keyed by (kernel, op, label, backward).
  using ProfileKey = std::tuple<const char*, const char*, const std::string*, bool>;
  bool profiling_ = false;
  double timestamp_ns_ = 0;       // nanoseconds per timestamp tick
  uint64_t timestamp_mask_ = 0;   // the valid bits of a timestamp
  std::map<ProfileKey, VulkanProfileRow> profile_;
  uint64_t profile_batches_ = 0;
};

}  // namespace adept::vk
