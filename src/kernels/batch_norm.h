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
/// The per-channel step between the statistics and the elementwise pass, in float64 on (C) vectors:
/// invstd = 1 / sqrt(var + eps), weight64 = weight (1 where undefined), scale = weight64 * invstd,
/// shift = bias (0 where undefined); where running_mean / running_var are defined they are updated in
/// place, in their dtype P: running_mean = running_mean * P(1 - factor) + P(mean * factor) and
/// running_var = running_var * P(1 - factor) + P(var * var_factor) (the ops the unfused update would
/// run, with the same roundings). weight, bias and the running statistics are contiguous (C) of one
/// dtype P (float32 or float64), the dtype `supports` is asked about.
ADEPT_DECLARE_KERNEL(batch_norm_finalize_kernel,
                     void(const Tensor& invstd, const Tensor& weight64, const Tensor& scale, const Tensor& shift,
                          const Tensor& mean, const Tensor& var, const Tensor& weight, const Tensor& bias,
                          const Tensor& running_mean, const Tensor& running_var, double eps, double factor,
                          double var_factor))
/// z[n, c, s] = (x[n, c, s] - mean[c]) * scale[c] + shift[c] (x - mean first, so that a large mean does
/// not cancel the normalised value in float32); out = z, or with `silu` out = silu(z) = z * sigmoid(z)
/// (the fused BN+SiLU of a training-mode Conv block: one pass instead of two, and z is never stored).
ADEPT_DECLARE_KERNEL(batch_norm_apply_kernel, void(const Tensor& out, const Tensor& x, const Tensor& mean,
                                                   const Tensor& scale, const Tensor& shift, bool silu))
/// With xhat = (x - mean[c]) * invstd[c] and M = N * S, and g the gradient reaching the batch norm's
/// output: g = dy, or, where `shift` is defined (the fused BN+SiLU: dy is the gradient of silu(z)),
/// g = dy * silu'(z) with z = xhat * weight[c] + shift[c] recomputed from x, computed as the forward
/// computes z, and silu'(z) = s (1 + z (1 - s)), s = sigmoid(z). Then sum_dy[c] = sum g, sum_dy_xhat[c] =
/// sum g * xhat, and, when dx is defined, dx = weight[c] * invstd[c] * (g - sum_dy[c] / M - xhat *
/// sum_dy_xhat[c] / M).
ADEPT_DECLARE_KERNEL(batch_norm_backward_kernel,
                     void(const Tensor& dx, const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                          const Tensor& weight, const Tensor& shift, const Tensor& sum_dy, const Tensor& sum_dy_xhat))

}  // namespace adept
