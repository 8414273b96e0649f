// Fused batch-norm kernels for training mode, keyed by device (CPU: src/backends/cpu/batch_norm.cpp).
// Operands are viewed as (N, C, S): batch, channel, all spatial positions; x, dy, dx and out are
// contiguous and of one float dtype; per-channel vectors are (C) contiguous float64.
#pragma once
#include "kernels/registry.h"
#include "adept/tensor.h"

namespace adept {

/// mean[c] and biased var[c] of x[:, c, :] (float64 accumulation, shifted by the channel's first
/// value so that a large mean does not cancel the variance).
ADEPT_DECLARE_KERNEL(batch_norm_stats_kernel, void(const Tensor& x, const Tensor& mean, const Tensor& var))
/// out[n, c, s] = (x[n, c, s] - mean[c]) * scale[c] + shift[c] (x - mean first, so that a large
/// mean does not cancel the normalised value in float32).
ADEPT_DECLARE_KERNEL(batch_norm_apply_kernel, void(const Tensor& out, const Tensor& x, const Tensor& mean,
                                                   const Tensor& scale, const Tensor& shift))
/// With xhat = (x - mean[c]) * invstd[c] and M = N * S: sum_dy[c] = sum dy, sum_dy_xhat[c] =
/// sum dy * xhat, and, when dx is defined,
/// dx = weight[c] * invstd[c] * (dy - sum_dy[c] / M - xhat * sum_dy_xhat[c] / M).
ADEPT_DECLARE_KERNEL(batch_norm_backward_kernel,
                     void(const Tensor& dx, const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                          const Tensor& weight, const Tensor& sum_dy, const Tensor& sum_dy_xhat))

}  // namespace adept
