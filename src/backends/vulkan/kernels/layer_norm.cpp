// Vulkan row normalization of layer_norm / group_norm and its gradient (shaders/layer_norm.comp).
#include "backends/vulkan/launch.h"
#include "kernels/layer_norm.h"

namespace adept::vk {
namespace {

void run(const char* op, int mode, const Tensor& out, const Tensor& rstd, const Tensor& in, const Tensor& xhat,
         double eps) {
  for (const Tensor* t : {&out, &rstd, &in, &xhat}) {
    ADEPT_CHECK(t->is_contiguous(), ValueError, "{}: the Vulkan kernel takes contiguous tensors", op);
    check_index_range(*t, op);
  }
  const int64_t rows = out.size(0), n = out.size(1);
  if (rows == 0 || n == 0) return;
  Context& ctx = context_of(out);
  const RowPlan plan = plan_rows(ctx, op, rows, n);
  const Grid2d g = plan.grid;
  const bool per_thread = plan.per_thread;
  struct Push { uint32_t rows, n, groups_x, pad; uint32_t eps[2]; } push{static_cast<uint32_t>(rows),
                                                                           static_cast<uint32_t>(n), g.x, 0, {0, 0}};
  ElementwisePush::set(push.eps, eps, out.dtype());
  launch(ctx, op, "layer_norm_" + dtype_suffix(out.dtype()), {mode, per_thread ? 1 : 0},
         storage_offsets({&out, &rstd, &in, &xhat}), {&out, &rstd, &in, &xhat}, &push, sizeof(push), g.x, g.y);
}

void row_normalize_vk(const Tensor& xhat, const Tensor& rstd, const Tensor& x, double eps) {
  run("layer_norm", 0, xhat, rstd, x, x, eps);
}

void row_normalize_backward_vk(const Tensor& grad_x, const Tensor& grad_xhat, const Tensor& xhat, const Tensor& rstd) {
  run("layer_norm backward", 1, grad_x, rstd, grad_xhat, xhat, 0);
}

bool floating(int, Dtype d) { return is_floating_point(d); }

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(row_normalize_kernel, Vulkan, row_normalize_vk, floating)
ADEPT_REGISTER_KERNEL_SUPPORTING(row_normalize_backward_kernel, Vulkan, row_normalize_backward_vk, floating)

}  // namespace adept::vk
