// Compute pipelines, created on first use and cached by (shader name, specialization constants).
// Every pipeline binds N storage buffers at set 0, bindings 0..N-1, plus push constants.
#pragma once
#include <vulkan/vulkan.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace adept::vk {

class Context;

struct Pipeline {
  std::string name;  // the shader variant (named in profiles)
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
};

class PipelineCache {
 public:
  explicit PipelineCache(Context& ctx) : ctx_(ctx) {}
  ~PipelineCache();
  /// Throws NotImplementedForDevice when no embedded shader is called `shader` (a dtype variant
  /// that does not exist), naming `op`.
  const Pipeline& get(const std::string& shader, const std::vector<int32_t>& spec, uint32_t bindings,
                      uint32_t push_size, const char* op);

 private:
  Context& ctx_;
  std::mutex mu_;
  std::map<std::string, VkShaderModule> modules_;
  std::map<std::string, Pipeline> pipelines_;
};

}  // namespace adept::vk
