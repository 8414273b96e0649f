// Vulkan kernels of the 2-d pooling families (shaders/pooling.comp, shaders/pooling_scatter.comp): one
// invocation per written element, each folding its window (forward) or the windows over it (backward, a
// gather: deterministic, in the CPU kernels' order). Drivers with a loop limit (llvmpipe) refuse windows
// whose loop would exceed it (NotImplementedForDevice).
#include <algorithm>

#include "backends/vulkan/launch.h"
#include "kernels/pooling.h"

namespace adept::vk {
namespace {

bool float_dtype(int, Dtype d) { return is_floating_point(d); }

// The most input rows (axis 0) or columns one window reads.
int64_t window_extent(const Pool2dGeometry& g, int axis) {
  const int64_t in = axis == 0 ? g.H : g.W, out = axis == 0 ? g.H_out : g.W_out;
  return g.adaptive ? (in + out - 1) / out + 1 : g.kernel[axis];
}

// The most windows that may read one input row (axis 0) or column (the shader's candidates()).
int64_t cover_extent(const Pool2dGeometry& g, int axis) {
  const int64_t in = axis == 0 ? g.H : g.W, out = axis == 0 ? g.H_out : g.W_out;
  if (g.adaptive) return (out + in - 1) / in + 1;
  return (g.kernel[axis] - 1) * g.dilation[axis] / g.stride[axis] + 1;
}

// Dispatches `shader` with one invocation per element of operands[0] (push constants: their count and the
// workgroups along x).
void dispatch_per_element(const char* op, const std::string& shader, const std::vector<int32_t>& spec,
                          const std::vector<int32_t>& meta, const std::vector<const Tensor*>& operands) {
  const Tensor& out = *operands[0];
  const uint32_t n = static_cast<uint32_t>(out.numel()), groups = (n + 255) / 256;
  const uint32_t gx = std::min<uint32_t>(groups, 65535), gy = (groups + gx - 1) / gx;
  struct Push { uint32_t n, groups_x; } push{n, gx};
  static_assert(sizeof(Push) == 8);
  launch(context_of(out), op, shader, spec, meta, operands, &push, sizeof(push), gx, gy);
}

// Checks the operands and the loop budget (rows x (cols + 1) steps), then runs `kind` (pool_max, ...) of
// shaders/pooling.comp over operands[0], with the geometry and operand offsets as its metadata.
void launch_pool(const char* op, const char* kind, const Pool2dGeometry& g, const std::vector<const Tensor*>& operands,
                 int64_t rows, int64_t cols) {
  const Tensor& out = *operands[0];
  if (out.numel() == 0) return;
  for (const Tensor* t : operands) check_index_range(*t, op);
  check_loop_budget(*operands.back(), op, rows * (cols + 1));
  std::vector<int64_t> meta64 = {g.H,         g.W,         g.H_out,       g.W_out,       g.kernel[0],
                                 g.kernel[1], g.stride[0], g.stride[1],   g.padding[0],  g.padding[1],
                                 g.dilation[0], g.dilation[1], g.adaptive, g.count_include_pad, g.divisor_override};
  for (const Tensor* t : operands) meta64.push_back(t->storage_offset());
  dispatch_per_element(op, std::string(kind) + "_" + dtype_suffix(out.dtype()), {},
                       std::vector<int32_t>(meta64.begin(), meta64.end()), operands);
}

void max_pool2d_vk(const Tensor& out, const Tensor& indices, const Tensor& in, const Pool2dGeometry& g) {
  launch_pool("max_pool2d", "pool_max", g, {&out, &indices, &in}, window_extent(g, 0), window_extent(g, 1));
}

void avg_pool2d_vk(const Tensor& out, const Tensor& in, const Pool2dGeometry& g) {
  launch_pool("avg_pool2d", "pool_avg", g, {&out, &in}, window_extent(g, 0), window_extent(g, 1));
}

void avg_pool2d_backward_vk(const Tensor& grad_in, const Tensor& grad_out, const Pool2dGeometry& g) {
  launch_pool("avg_pool2d_backward", "pool_avg_backward", g, {&grad_in, &grad_out}, cover_extent(g, 0),
              cover_extent(g, 1));
}

void max_pool2d_backward_vk(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                            const Pool2dGeometry& g) {
  launch_pool("max_pool2d_backward", "pool_max_backward", g, {&grad_in, &grad_out, &indices}, cover_extent(g, 0),
              cover_extent(g, 1));
}

void plane_scatter_vk(const Tensor& out, const Tensor& src, const Tensor& index, bool add) {
  const char* op = add ? "plane_scatter (add)" : "plane_scatter";
  if (out.numel() == 0) return;
  for (const Tensor* t : {&out, &src, &index}) check_index_range(*t, op);
  const int64_t L = src.size(1);
  check_loop_budget(src, op, L);
  std::vector<int32_t> meta = {static_cast<int32_t>(out.size(1)), static_cast<int32_t>(L),
                               static_cast<int32_t>(out.storage_offset()), static_cast<int32_t>(src.storage_offset()),
                               static_cast<int32_t>(index.storage_offset())};
  dispatch_per_element(op, "pool_scatter_" + dtype_suffix(out.dtype()), {add ? 1 : 0}, meta, {&out, &src, &index});
}

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(max_pool2d_kernel, Vulkan, max_pool2d_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(avg_pool2d_kernel, Vulkan, avg_pool2d_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(avg_pool2d_backward_kernel, Vulkan, avg_pool2d_backward_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(max_pool2d_backward_kernel, Vulkan, max_pool2d_backward_vk, float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(plane_scatter_kernel, Vulkan, plane_scatter_vk, float_dtype)

}  // namespace adept::vk
