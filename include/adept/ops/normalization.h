// Normalization layers in functional form: batch_norm, layer_norm, group_norm
// (torch.nn.functional.batch_norm / layer_norm / group_norm: same semantics, names and defaults), and
// batch_norm_silu, batch norm fused with SiLU.
#pragma once
#include <optional>

#include "adept/tensor.h"

namespace adept {

/// Batch normalization (Ioffe & Szegedy, 2015): y = (x - mean) / sqrt(var + eps) * weight + bias,
/// per channel (dim 1). Input (N, C), (N, C, L), (N, C, H, W) or any (N, C, *) -> same shape.
/// running_mean, running_var, weight, bias: (C) or undefined.
///
/// training = true: mean and biased variance over all dims but 1 normalise the input, and the
/// gradient flows through them. Defined running stats are updated in place without autograd:
/// running = (1 - f) * running + f * batch_stat, with the *unbiased* batch variance, where
/// f = momentum; momentum = nullopt means a cumulative average, f = 1 / num_batches_tracked, read
/// from `num_batches_tracked` (a number-of-batches tensor that the caller, like
/// torch.nn.BatchNorm*d, increments *before* the call). training = false: the running stats
/// normalise (both must be defined).
///
/// In training, float32/float64 inputs on the CPU and every float dtype on Vulkan take fused per-channel
/// kernels (forward and backward; create_graph backward falls back to op formulas, so double backward works).
/// Errors: ValueError for training with one value per channel (N * prod(*) == 1) or for
/// momentum = nullopt without num_batches_tracked; ShapeError for input with fewer than 2 dims or
/// stats/affine parameters without C elements; ValueError for eval without running stats.
/// An empty input (N = 0) returns an empty result and leaves the running stats unchanged.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false,
                  std::optional<double> momentum = 0.1, double eps = 1e-5, const Tensor& num_batches_tracked = {});

/// silu(batch_norm(input, ...)) (SiLU: Elfwing et al. 2017), an Adept extension with batch_norm's
/// arguments, shapes, running-statistics update and errors (their messages name batch_norm_silu). In training
/// mode on the devices and dtypes with batch_norm's fused kernels it is one fused node: the forward writes
/// silu(z) without storing the normalised z, and the backward recomputes z from the saved input and folds
/// silu'(z) into the batch-norm gradient's sums, so a Conv-BN-SiLU block keeps one activation fewer and makes
/// two passes fewer over it. Elsewhere (eval mode, other dtypes) it is silu of batch_norm's result.
/// Gradients equal those of silu(batch_norm(...)), also with create_graph (double backward).
Tensor batch_norm_silu(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight = {}, const Tensor& bias = {}, bool training = false,
                       std::optional<double> momentum = 0.1, double eps = 1e-5,
                       const Tensor& num_batches_tracked = {});

/// Layer normalization (Ba et al., 2016): normalises over the last len(normalized_shape) dims with
/// their mean and biased variance, then applies the elementwise affine weight/bias of shape
/// normalized_shape. Input (*, normalized_shape) -> same shape. ShapeError when the trailing dims
/// of input differ from normalized_shape, or weight/bias are not shaped normalized_shape.
Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);

/// Group normalization (Wu & He, 2018): channels (dim 1) split into num_groups groups, each
/// normalised over its channels and all spatial positions per sample; weight/bias (C) are per
/// channel. Input (N, C, *) -> same shape. IndexError for input with fewer than 2 dims, ShapeError
/// for weight/bias without C elements; ValueError when C is not divisible by num_groups or
/// num_groups <= 0.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);

}  // namespace adept
