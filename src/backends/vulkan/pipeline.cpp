// Pipeline creation and caching (see pipeline.h).
#include "backends/vulkan/pipeline.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "adept/errors.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/shader_registry.h"

namespace adept::vk {
namespace {

// ADEPT_VK_SHADER_DIR=DIR: a module DIR/<name>.spv replaces the embedded one of that name (tuning sweeps
// try compiled shader variants without a rebuild; the variant must keep the shader's bindings, push
// constants and specialization constants). Returns the words read, or nothing when there is no such file.
std::vector<uint32_t> override_module(const std::string& shader) {
  static const char* dir = std::getenv("ADEPT_VK_SHADER_DIR");
  if (!dir || !*dir) return {};
  std::ifstream f(std::string(dir) + "/" + shader + ".spv", std::ios::binary);
  if (!f) return {};
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ADEPT_CHECK(!bytes.empty() && bytes.size() % 4 == 0, ValueError,
              "ADEPT_VK_SHADER_DIR: {}/{}.spv is not a SPIR-V module ({} bytes)", dir, shader, bytes.size());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

}  // namespace

PipelineCache::~PipelineCache() {
  VkDevice dev = ctx_.device();
  for (auto& [k, p] : pipelines_) {
    vkDestroyPipeline(dev, p.pipeline, nullptr);
    vkDestroyPipelineLayout(dev, p.layout, nullptr);
    vkDestroyDescriptorSetLayout(dev, p.set_layout, nullptr);
  }
  for (auto& [k, m] : modules_) vkDestroyShaderModule(dev, m, nullptr);
}

const Pipeline& PipelineCache::get(const std::string& shader, const std::vector<int32_t>& spec, uint32_t bindings,
                                   uint32_t push_size, const char* op) {
  std::string key = shader;
  for (int32_t s : spec) key += fmt::format(":{}", s);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  VkDevice dev = ctx_.device();
  auto mit = modules_.find(shader);
  if (mit == modules_.end()) {
    const std::vector<uint32_t> replaced = override_module(shader);
    const ShaderBinary* bin = nullptr;
    for (const auto& s : shader_registry()) {
      if (shader == s.name) bin = &s;
    }
    const ShaderBinary own{shader.c_str(), replaced.data(), replaced.size()};
    if (!replaced.empty()) bin = &own;
    if (!bin) {
      throw NotImplementedForDevice(fmt::format("{}: not implemented for device 'vulkan' (no shader variant '{}')",
                                                op, shader));
    }
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = bin->words * 4;
    mi.pCode = bin->code;
    VkShaderModule m;
    ADEPT_VK(vkCreateShaderModule(dev, &mi, nullptr, &m));
    mit = modules_.emplace(shader, m).first;
  }
  Pipeline p;
  p.name = shader;
  std::vector<VkDescriptorSetLayoutBinding> b(bindings);
  for (uint32_t i = 0; i < bindings; ++i) {
    b[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = bindings;
  li.pBindings = b.data();
  ADEPT_VK(vkCreateDescriptorSetLayout(dev, &li, nullptr, &p.set_layout));
  VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &p.set_layout;
  pli.pushConstantRangeCount = push_size ? 1 : 0;
  pli.pPushConstantRanges = &pr;
  ADEPT_VK(vkCreatePipelineLayout(dev, &pli, nullptr, &p.layout));
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    entries[i] = {static_cast<uint32_t>(i), static_cast<uint32_t>(i * 4), 4};
  }
  VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(), spec.size() * 4, spec.data()};
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = mit->second;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
  ci.layout = p.layout;
  ADEPT_VK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, nullptr, &p.pipeline));
  return pipelines_.emplace(key, p).first->second;
}

}  // namespace adept::vk
