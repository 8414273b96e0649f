// Shared Vulkan kernel plumbing (see launch.h).
#include "backends/vulkan/launch.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "adept/errors.h"
#include "backends/vulkan/allocator.h"
#include "backends/vulkan/pipeline.h"

namespace adept::vk {

Context& context_of(const Tensor& t) { return Context::get(t.device().index); }

BufferRange range_of(const Tensor& t) {
  auto* chunk = static_cast<Chunk*>(t.impl()->storage->data());
  return {block_of(chunk)->buffer, chunk->offset, chunk->size};
}

std::string dtype_suffix(Dtype d) {
  switch (d) {
    case kFloat32: return "f32";
    case kFloat16: return "f16";
    case kBFloat16: return "bf16";
    case kFloat64: return "f64";
    case kInt32: return "i32";
    case kInt64: return "i64";
    case kUInt8: return "u8";
    case kBool: return "bool";
  }
  return "?";
}

void ElementwisePush::set(uint32_t (&slot)[2], double v, Dtype d) {
  if (d == kFloat64) {
    std::memcpy(slot, &v, 8);
  } else if (!is_floating_point(d)) {
    // An integer, clamped into the dtype's range (infinite clamp bounds become its extremes).
    int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    if (d == kInt32) { lo = std::numeric_limits<int32_t>::min(); hi = std::numeric_limits<int32_t>::max(); }
    if (d == kUInt8 || d == kBool) { lo = 0; hi = d == kBool ? 1 : 255; }
    int64_t i = 0;  // NaN
    if (v <= static_cast<double>(lo)) i = lo;
    else if (v >= static_cast<double>(hi)) i = hi;  // 2^63 as a double: the int64 maximum
    else if (!std::isnan(v)) i = static_cast<int64_t>(v);
    std::memcpy(slot, &i, 8);
  } else {
    const float f = static_cast<float>(v);
    std::memcpy(&slot[0], &f, 4);
    slot[1] = 0;
  }
}

uint32_t groups_for(int64_t n) {
  int64_t g = (n + 255) / 256;
  return static_cast<uint32_t>(std::clamp<int64_t>(g, 1, 65535));
}

Grid2d grid_2d(int64_t groups) {
  const int64_t x = std::clamp<int64_t>(groups, 1, 65535);
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(std::max<int64_t>(1, (groups + x - 1) / x))};
}

std::vector<int32_t> storage_offsets(const std::vector<const Tensor*>& operands) {
  std::vector<int32_t> meta;
  for (const Tensor* t : operands) meta.push_back(static_cast<int32_t>(t->storage_offset()));
  return meta;
}

Grid2d grid_for(int64_t n, const char* op) {
  const Grid2d g = grid_2d((n + 255) / 256);
  ADEPT_CHECK(g.y <= 65535, ValueError, "{}: {} elements are too many for one Vulkan dispatch", op, n);
  return g;
}

RowPlan plan_rows(const Context& ctx, const char* op, int64_t rows, int64_t n) {
  const bool per_thread = n <= 64 && rows >= 1024;
  const int64_t steps = 3 * (per_thread ? n : (n + 255) / 256);
  const uint32_t limit = ctx.info().loop_iteration_limit;
  ADEPT_CHECK(limit == 0 || steps <= limit / 2, NotImplementedForDevice,
              "{}: rows of {} elements exceed what one invocation may loop over on {} (driver loop limit {})", op, n,
              ctx.info().name, limit);
  return {per_thread, grid_2d(per_thread ? (rows + 255) / 256 : rows)};
}

void check_loop_budget(const Tensor& in, const char* op, int64_t steps) {
  const uint32_t limit = context_of(in).info().loop_iteration_limit;
  if (limit == 0 || steps <= limit / 2) return;
  throw NotImplementedForDevice(fmt::format(
      "{}: {} loop steps per element (input of shape [{}], {}) are not implemented for device '{}' (its driver cuts "
      "shader loops after {} iterations)",
      op, steps, fmt::join(in.sizes(), ", "), dtype_name(in.dtype()), in.device().str(), limit));
}

void check_index_range(const Tensor& t, const char* op) {
  int64_t span = t.storage_offset() + 1;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.size(d) - 1) * std::abs(t.stride(d));
  ADEPT_CHECK(t.numel() < std::numeric_limits<int32_t>::max() && span < std::numeric_limits<int32_t>::max(), ValueError,
              "{}: tensor of shape {} is too large for the Vulkan backend's 32-bit indexing", op,
              fmt::format("[{}]", fmt::join(t.sizes(), ", ")));
}

void launch(Context& ctx, const char* op, const std::string& shader, const std::vector<int32_t>& spec,
            const std::vector<int32_t>& meta, const std::vector<const Tensor*>& operands, const void* push,
            uint32_t push_size, uint32_t gx, uint32_t gy, uint32_t gz) {
  std::vector<BufferRange> buffers;
  for (const Tensor* t : operands) buffers.push_back(range_of(*t));
  launch_buffers(ctx, op, shader, spec, meta, buffers, push, push_size, gx, gy, gz);
}

void launch_buffers(Context& ctx, const char* op, const std::string& shader, const std::vector<int32_t>& spec,
                    const std::vector<int32_t>& meta, const std::vector<BufferRange>& operands, const void* push,
                    uint32_t push_size, uint32_t gx, uint32_t gy, uint32_t gz) {
  ADEPT_CHECK(push_size <= ctx.info().max_push_constants, ValueError, "{}: push constants of {} bytes exceed the "
              "device limit of {}", op, push_size, ctx.info().max_push_constants);
  ADEPT_CHECK(ctx.info().float64 || shader.find("f64") == std::string::npos, NotImplementedForDevice,
              "{}: dtype float64 is not implemented for device 'vulkan:{}' ({} lacks shaderFloat64)", op, ctx.index(),
              ctx.info().name);
  const auto& p = ctx.pipelines().get(shader, spec, static_cast<uint32_t>(operands.size() + 1), push_size, op);
  std::lock_guard<std::mutex> lock(ctx.mutex());
  std::vector<BufferRange> buffers;
  buffers.push_back(ctx.stream().push_meta(meta));
  buffers.insert(buffers.end(), operands.begin(), operands.end());
  ctx.stream().dispatch(op, p.name.c_str(), p.pipeline, p.layout, p.set_layout, buffers, push, push_size, gx, gy, gz);
}

void launch_elementwise(const char* op, const std::string& shader, const std::vector<int32_t>& spec,
                        const std::vector<const Tensor*>& operands, ElementwisePush push) {
  const Tensor& out = *operands[0];
  if (out.numel() == 0) return;
  for (const Tensor* t : operands) check_index_range(*t, op);
  const size_t k = operands.size();
  // Coalesce dims where every operand is contiguous across them (sizes of 1 dropped).
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides(k);
  for (int64_t d = 0; d < out.dim(); ++d) {
    int64_t s = out.size(d);
    if (s == 1) continue;
    bool merge = !sizes.empty();
    for (size_t i = 0; i < k && merge; ++i) merge = strides[i].back() == operands[i]->stride(d) * s;
    if (merge) {
      sizes.back() *= s;
      for (size_t i = 0; i < k; ++i) strides[i].back() = operands[i]->stride(d);
    } else {
      sizes.push_back(s);
      for (size_t i = 0; i < k; ++i) strides[i].push_back(operands[i]->stride(d));
    }
  }
  if (sizes.empty()) {
    sizes.push_back(1);
    for (size_t i = 0; i < k; ++i) strides[i].push_back(1);
  }
  std::vector<int32_t> meta(sizes.begin(), sizes.end());
  push.contiguous = 0;
  for (size_t i = 0; i < k; ++i) {
    meta.push_back(static_cast<int32_t>(operands[i]->storage_offset()));
    for (int64_t s : strides[i]) meta.push_back(static_cast<int32_t>(s));
    if (sizes.size() == 1 && (strides[i][0] == 1 || sizes[0] == 1)) push.contiguous |= 1u << i;
  }
  push.numel = static_cast<uint32_t>(out.numel());
  push.ndim = static_cast<uint32_t>(sizes.size());
  launch(context_of(out), op, shader, spec, meta, operands, &push, sizeof(push), groups_for(out.numel()));
}

}  // namespace adept::vk
