// Vulkan fused softmax / log_softmax and their gradients (shaders/softmax.comp).
#include "backends/vulkan/launch.h"
#include "kernels/reduce.h"

namespace adept::vk {
namespace {

void run(const char* op, int mode, const Tensor& out, const Tensor& in, const Tensor& y, int64_t dim) {
  for (const Tensor* t : {&out, &in, &y}) {
    ADEPT_CHECK(t->is_contiguous(), ValueError, "{}: the Vulkan kernel takes contiguous tensors", op);
    check_index_range(*t, op);
  }
  if (out.numel() == 0) return;
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.size(d);
  const int64_t n = out.size(dim), rows = out.numel() / n;
  Context& ctx = context_of(out);
  const RowPlan plan = plan_rows(ctx, op, rows, n);
  const Grid2d g = plan.grid;
  const bool per_thread = plan.per_thread;
  struct Push { uint32_t rows, n, inner, groups_x; } push{static_cast<uint32_t>(rows), static_cast<uint32_t>(n),
                                                          static_cast<uint32_t>(inner), g.x};
  launch(ctx, op, "softmax_" + dtype_suffix(out.dtype()), {mode, per_thread ? 1 : 0}, storage_offsets({&out, &in, &y}),
         {&out, &in, &y}, &push, sizeof(push), g.x, g.y);
}

void softmax_vk(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  run(log ? "log_softmax" : "softmax", log ? 1 : 0, out, in, in, dim);
}

void softmax_backward_vk(const Tensor& grad_in, const Tensor& grad_out, const Tensor& y, int64_t dim, bool log) {
  run(log ? "log_softmax backward" : "softmax backward", log ? 3 : 2, grad_in, grad_out, y, dim);
}

bool floating(int, Dtype d) { return is_floating_point(d); }

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(softmax_kernel, Vulkan, softmax_vk, floating)
ADEPT_REGISTER_KERNEL_SUPPORTING(softmax_backward_kernel, Vulkan, softmax_backward_vk, floating)

}  // namespace adept::vk
