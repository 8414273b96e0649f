// The op-composed training-mode batch norm, kept beside the fused kernels as their reference
// (tests compare the two; devices without the fused kernels use it).
#pragma once
#include "adept/tensor.h"

namespace adept {

/// Training-mode batch norm of input (N, C, *) from ops (autograd through the batch statistics);
/// mean_out / var_out receive the batch mean and biased variance, shape (C), without history.
Tensor batch_norm_composed(const Tensor& input, const Tensor& weight, const Tensor& bias, double eps, Tensor& mean_out,
                           Tensor& var_out);

}  // namespace adept
