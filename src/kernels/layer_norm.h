// Kernel families of the row normalization behind layer_norm and group_norm: a contiguous tensor viewed
// as (R, L) is normalized over each row of L elements (layer_norm: the normalized trailing dims;
// group_norm: one (sample, group) block). Optional (Vulkan): the op composes the same from reductions
// and pointwise ops on devices without them, and for create_graph.
#pragma once
#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// xhat[r, :] = (x[r, :] - mean_r) * rstd[r] with rstd[r] = 1 / sqrt(var_r + eps), var the biased
/// variance of the row (two passes: the mean, then the squares of x - mean), accumulated in float (double
/// for float64). x, xhat (R, L) contiguous of one floating dtype; rstd (R) float32 (float64 for float64).
ADEPT_DECLARE_KERNEL(row_normalize_kernel, void(const Tensor& xhat, const Tensor& rstd, const Tensor& x, double eps))
/// The gradient of row_normalize for upstream g: grad_x = rstd * (g - mean(g) - xhat * mean(g * xhat)),
/// means over each row. Shapes and dtypes as row_normalize_kernel's.
ADEPT_DECLARE_KERNEL(row_normalize_backward_kernel,
                     void(const Tensor& grad_x, const Tensor& grad_xhat, const Tensor& xhat, const Tensor& rstd))

}  // namespace adept
