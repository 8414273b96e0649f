// The affine map of torch.nn.functional.linear.
#pragma once
#include "adept/tensor.h"

namespace adept::nn::functional {

/// y = input @ weight^T + bias. input (*, in_features), weight (out_features, in_features), bias
/// (out_features) or undefined -> (*, out_features). A 1-d weight (in_features) gives (*).
/// ShapeError when in_features differ or bias does not broadcast to the output.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

}  // namespace adept::nn::functional
