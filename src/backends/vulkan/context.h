// Vulkan runtime: one Context per physical device (instance shared), holding the logical device,
// the compute queue, the memory allocator, the command stream and the pipeline cache.
#pragma once
#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adept/vulkan.h"

namespace adept::vk {

/// Throws adept::Error naming the call and the VkResult when `r` is not VK_SUCCESS.
void check(VkResult r, const char* what);
#define ADEPT_VK(call) ::adept::vk::check((call), #call)

class Allocator;
class Stream;
class PipelineCache;

class Context {
 public:
  /// The context of device `index` (-1 = default: ADEPT_VULKAN_DEVICE or 0); created on first use.
  /// Throws DeviceError when there is no Vulkan driver or no such device.
  static Context& get(int index);
  /// True when a Vulkan instance with at least one device can be created.
  static bool available();
  ~Context();

  VkDevice device() const { return device_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const VulkanDeviceInfo& info() const { return info_; }
  /// Device-local memory for tensors.
  Allocator& allocator() { return *allocator_; }
  /// Host-visible, mapped memory for staging copies and kernel metadata.
  Allocator& host_allocator() { return *host_allocator_; }
  Stream& stream() { return *stream_; }
  PipelineCache& pipelines() { return *pipelines_; }
  int index() const { return index_; }
  /// Memory type index with `required` flags (and ideally `preferred`) for `type_bits`.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
  std::mutex& mutex() { return mu_; }
  /// The op of the stream's most recent dispatch or copy ("" before any).
  const char* last_op() const;
  /// Device-to-host copies so far (vulkan_download_count).
  std::atomic<uint64_t>& downloads() { return downloads_; }

 private:
  explicit Context(int index);
  int index_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceMemoryProperties mem_props_{};
  VulkanDeviceInfo info_;
  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<Allocator> host_allocator_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<PipelineCache> pipelines_;
  std::mutex mu_;
  std::atomic<uint64_t> downloads_{0};
};

/// The shared VkInstance (with validation layers when ADEPT_VK_VALIDATION=1).
VkInstance instance();
/// Number of validation messages of severity error seen so far (tests assert it stays 0).
uint64_t validation_error_count();

}  // namespace adept::vk
