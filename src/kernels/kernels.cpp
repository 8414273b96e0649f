// Definitions of the kernel-family tables declared in this folder (one per family).
#include "kernels/kernels.h"

namespace adept {

ADEPT_DEFINE_KERNEL(copy_kernel, void(const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(fill_kernel, void(const Tensor&, const Scalar&))
ADEPT_DEFINE_KERNEL(unary_kernel, void(UnaryOp, const Tensor&, const Tensor&, const UnaryParams&))
ADEPT_DEFINE_KERNEL(binary_kernel, void(BinaryOp, const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(where_kernel, void(const Tensor&, const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(silu_backward_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(reduce_kernel, void(ReduceOp, const Tensor&, const Tensor&, uint64_t))
ADEPT_DEFINE_KERNEL(scan_kernel, void(const Tensor&, const Tensor&, int64_t, bool))
ADEPT_DEFINE_KERNEL(sort_kernel, void(const Tensor&, const Tensor&, const Tensor&, bool, int64_t))
ADEPT_DEFINE_KERNEL(softmax_kernel, void(const Tensor&, const Tensor&, int64_t, bool))
ADEPT_DEFINE_KERNEL(softmax_backward_kernel, void(const Tensor&, const Tensor&, const Tensor&, int64_t, bool))
ADEPT_DEFINE_KERNEL(bmm_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(to_host_kernel, void(void*, const Tensor&))
ADEPT_DEFINE_KERNEL(from_host_kernel, void(const Tensor&, const void*))
ADEPT_DEFINE_KERNEL(gather_kernel, void(const Tensor&, const Tensor&, int64_t, const Tensor&))
ADEPT_DEFINE_KERNEL(scatter_kernel, void(const Tensor&, int64_t, const Tensor&, const Tensor&, bool))
ADEPT_DEFINE_KERNEL(index_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(index_put_kernel, void(const Tensor&, const Tensor&, const Tensor&, bool))
ADEPT_DEFINE_KERNEL(nonzero_kernel, void(const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(conv2d_forward_kernel,
                    void(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const ConvGeometry&))
ADEPT_DEFINE_KERNEL(conv2d_backward_input_kernel, void(const Tensor&, const Tensor&, const Tensor&, const ConvGeometry&))
ADEPT_DEFINE_KERNEL(conv2d_backward_weight_kernel, void(const Tensor&, const Tensor&, const Tensor&, const ConvGeometry&))
ADEPT_DEFINE_KERNEL(max_pool2d_kernel, void(const Tensor&, const Tensor&, const Tensor&, const Pool2dGeometry&))
ADEPT_DEFINE_KERNEL(max_pool2d_backward_kernel,
                    void(const Tensor&, const Tensor&, const Tensor&, const Pool2dGeometry&))
ADEPT_DEFINE_KERNEL(avg_pool2d_kernel, void(const Tensor&, const Tensor&, const Pool2dGeometry&))
ADEPT_DEFINE_KERNEL(avg_pool2d_backward_kernel, void(const Tensor&, const Tensor&, const Pool2dGeometry&))
ADEPT_DEFINE_KERNEL(plane_scatter_kernel, void(const Tensor&, const Tensor&, const Tensor&, bool))
ADEPT_DEFINE_KERNEL(interpolate_kernel, void(const Tensor&, const Tensor&, const InterpTaps&, const InterpTaps&))
ADEPT_DEFINE_KERNEL(interpolate_backward_kernel, void(const Tensor&, const Tensor&, const InterpTaps&, const InterpTaps&))
ADEPT_DEFINE_KERNEL(row_normalize_kernel, void(const Tensor&, const Tensor&, const Tensor&, double))
ADEPT_DEFINE_KERNEL(row_normalize_backward_kernel, void(const Tensor&, const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(random_kernel, void(const Tensor&, const RandomDraw&))
ADEPT_DEFINE_KERNEL(sgd_step_kernel, void(const std::vector<Tensor>&, const std::vector<Tensor>&,
                                          const std::vector<Tensor>&, const SGDStep&))
ADEPT_DEFINE_KERNEL(adam_step_kernel, void(const std::vector<Tensor>&, const std::vector<Tensor>&,
                                           const std::vector<Tensor>&, const std::vector<Tensor>&,
                                           const std::vector<Tensor>&, const AdamStep&))
ADEPT_DEFINE_KERNEL(ema_update_kernel, void(const std::vector<Tensor>&, const std::vector<Tensor>&, double))
ADEPT_DEFINE_KERNEL(amp_unscale_kernel, void(const std::vector<Tensor>&, const Tensor&, double))
ADEPT_DEFINE_KERNEL(batch_norm_stats_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(batch_norm_finalize_kernel,
                    void(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, const Tensor&, const Tensor&, double, double, double))
ADEPT_DEFINE_KERNEL(batch_norm_apply_kernel,
                    void(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, bool))
ADEPT_DEFINE_KERNEL(batch_norm_backward_kernel, void(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                     const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                                     const Tensor&))

}  // namespace adept
