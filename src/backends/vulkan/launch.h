// Helpers shared by the Vulkan kernels: operand buffers, dtype variant names, N-d metadata and
// dispatch of the elementwise shaders.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "adept/tensor.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/stream.h"

namespace adept::vk {

/// The context of the device a tensor lives on.
Context& context_of(const Tensor& t);
/// The buffer range (whole chunk) holding a Vulkan tensor's storage.
BufferRange range_of(const Tensor& t);
/// Shader-variant suffix of a dtype ("f32", "f16", "i32", "i64", "u8" for bool); throws
/// NotImplementedForDevice naming `op` for dtypes the backend lacks (float64, bfloat16, uint8).
std::string dtype_suffix(Dtype d, const char* op);
/// Whether Vulkan tensors can hold `d` (there is a copy/fill/where/reduce shader variant for it); the
/// `code` argument makes it a KernelSupportFn.
bool storable_dtype(int code, Dtype d);

/// Push constants of the elementwise shaders (mirrors shaders/elementwise_pc.glsl, std430).
struct ElementwisePush {
  uint32_t numel = 0;
  uint32_t ndim = 0;
  uint32_t contiguous = 0;
  uint32_t pad0 = 0;
  float a = 0, b = 0, c = 0;
  uint32_t pad1 = 0;
};
static_assert(offsetof(ElementwisePush, numel) == 0);
static_assert(offsetof(ElementwisePush, contiguous) == 8);
static_assert(offsetof(ElementwisePush, a) == 16);
static_assert(offsetof(ElementwisePush, c) == 24);
static_assert(sizeof(ElementwisePush) == 32);

/// Dispatches an elementwise shader over same-shaped operands (operand 0 is the output):
/// dims are coalesced, sizes/offsets/strides go into the metadata buffer.
void launch_elementwise(const char* op, const std::string& shader, const std::vector<int32_t>& spec,
                        const std::vector<const Tensor*>& operands, ElementwisePush push);

/// Dispatches `shader` with the metadata `meta`, operand buffers and raw push constants.
void launch(Context& ctx, const char* op, const std::string& shader, const std::vector<int32_t>& spec,
            const std::vector<int32_t>& meta, const std::vector<const Tensor*>& operands, const void* push,
            uint32_t push_size, uint32_t gx, uint32_t gy = 1, uint32_t gz = 1);

/// Number of workgroups (of 256) for a grid-stride loop over n elements.
uint32_t groups_for(int64_t n);
/// Throws ValueError when a tensor is too large for 32-bit indexing in shaders.
void check_index_range(const Tensor& t, const char* op);

}  // namespace adept::vk
