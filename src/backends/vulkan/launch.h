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
/// Shader-variant suffix of a dtype, as in the shaders' `@build` lines: "f32", "f16", "bf16", "f64",
/// "i32", "i64", "u8", "bool".
std::string dtype_suffix(Dtype d);

/// Push constants of the elementwise shaders (mirrors shaders/elementwise_pc.glsl, std430).
/// The parameters a, b, c hold a float's bits in word 0, a double's two words for float64 variants, or an
/// int64's two words for integer variants.
struct ElementwisePush {
  uint32_t numel = 0;
  uint32_t ndim = 0;
  uint32_t contiguous = 0;
  uint32_t pad0 = 0;
  uint32_t a[2] = {0, 0}, b[2] = {0, 0}, c[2] = {0, 0}, d[2] = {0, 0};
  /// Stores `v` into parameter `slot` (a, b or c) as the shader variant of dtype `d` reads it.
  static void set(uint32_t (&slot)[2], double v, Dtype d);
};
static_assert(offsetof(ElementwisePush, numel) == 0);
static_assert(offsetof(ElementwisePush, contiguous) == 8);
static_assert(offsetof(ElementwisePush, a) == 16);
static_assert(offsetof(ElementwisePush, c) == 32);
static_assert(sizeof(ElementwisePush) == 48);

/// Dispatches an elementwise shader over same-shaped operands (operand 0 is the output):
/// dims are coalesced, sizes/offsets/strides go into the metadata buffer.
void launch_elementwise(const char* op, const std::string& shader, const std::vector<int32_t>& spec,
                        const std::vector<const Tensor*>& operands, ElementwisePush push);

/// Dispatches `shader` with the metadata `meta`, operand buffers and raw push constants.
void launch(Context& ctx, const char* op, const std::string& shader, const std::vector<int32_t>& spec,
            const std::vector<int32_t>& meta, const std::vector<const Tensor*>& operands, const void* push,
            uint32_t push_size, uint32_t gx, uint32_t gy = 1, uint32_t gz = 1);

/// launch() with explicit buffer ranges for bindings 1.. (e.g. whole memory blocks) instead of tensors.
void launch_buffers(Context& ctx, const char* op, const std::string& shader, const std::vector<int32_t>& spec,
                    const std::vector<int32_t>& meta, const std::vector<BufferRange>& buffers, const void* push,
                    uint32_t push_size, uint32_t gx, uint32_t gy = 1, uint32_t gz = 1);

/// The storage offsets (elements) of the operands, in order: the metadata of shaders that index
/// contiguous operands as `buf[meta[k] + i]` (a bound buffer is the operand's whole storage chunk).
std::vector<int32_t> storage_offsets(const std::vector<const Tensor*>& operands);
/// Number of workgroups (of 256) for a grid-stride loop over n elements.
uint32_t groups_for(int64_t n);
/// A grid of `groups` workgroups (at least one) as x * y with x <= 65535, for shaders that number their
/// workgroup gl_WorkGroupID.y * x + gl_WorkGroupID.x (and skip numbers past `groups`).
struct Grid2d {
  uint32_t x, y;
};
Grid2d grid_2d(int64_t groups);
/// grid_2d for one invocation per element of n (workgroups of 256): the shader's element is
/// (gl_WorkGroupID.y * x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x. ValueError past 65535 rows.
Grid2d grid_for(int64_t n, const char* op);
/// How the row shaders (row_reduce.glsl) cover `rows` rows of `n` elements: one workgroup per row, or one
/// invocation per row for many short rows (per_thread); raises NotImplementedForDevice naming `op` when
/// an invocation would loop past the driver's limit (each walks its share of a row three times).
struct RowPlan {
  bool per_thread;
  Grid2d grid;
};
RowPlan plan_rows(const Context& ctx, const char* op, int64_t rows, int64_t n);
/// Raises NotImplementedForDevice when `steps` loop iterations per invocation exceed half the driver's
/// loop_iteration_limit (llvmpipe); `in` is the operand named in the error (with `op`).
void check_loop_budget(const Tensor& in, const char* op, int64_t steps);
/// Throws ValueError when a tensor is too large for 32-bit indexing in shaders.
void check_index_range(const Tensor& t, const char* op);

}  // namespace adept::vk
