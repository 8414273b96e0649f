// Embedded SPIR-V modules of the Vulkan backend (generated at build time from shaders/*.comp;
// names are `<shader>_<out dtype>_<in dtype>`).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace adept::vk {

struct ShaderBinary {
  const char* name;
  const uint32_t* code;
  size_t words;
};

const std::vector<ShaderBinary>& shader_registry();

}  // namespace adept::vk
