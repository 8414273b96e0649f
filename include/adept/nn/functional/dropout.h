// Dropout (Srivastava et al., 2014) in functional form, as torch.nn.functional.dropout.
#pragma once
#include "adept/tensor.h"

namespace adept::nn::functional {

/// training: each element is zeroed with probability p (a Bernoulli mask from adept's default
/// Philox generator, so manual_seed reproduces it) and the rest scaled by 1 / (1 - p); the
/// gradient uses the same mask and scale. p = 1 multiplies by 0 (NaN stays NaN, as PyTorch).
/// Not training, p = 0 or an empty input: returns `input` itself. Any shape -> same shape.
/// ValueError unless 0 <= p <= 1.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);

}  // namespace adept::nn::functional
