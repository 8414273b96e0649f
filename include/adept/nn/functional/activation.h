// Activation functions of torch.nn.functional: the elementwise ops of adept/ops re-exported into
// nn::functional, plus the piecewise ones layers need (hardtanh, relu6, hardsigmoid, hardswish,
// elu, mish). All take tensors of any shape and return the same shape; all but hardtanh and relu6
// (which also clamp integers, as PyTorch) raise DtypeError for non-float input. Gradients at the
// kinks follow PyTorch's choice, noted per function.
#pragma once
#include "adept/ops/pointwise.h"
#include "adept/ops/reduce.h"

namespace adept::nn::functional {

using adept::gelu;
using adept::hardshrink;
using adept::leaky_relu;
using adept::log_softmax;
using adept::logsigmoid;
using adept::relu;
using adept::sigmoid;
using adept::silu;
using adept::softmax;
using adept::softplus;
using adept::tanh;

/// clamp(x, min_val, max_val); gradient 1 strictly inside (min_val, max_val), 0 elsewhere.
/// ValueError when min_val > max_val.
Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0);
/// min(max(x, 0), 6) = hardtanh(x, 0, 6) (Krizhevsky, 2010; MobileNet).
Tensor relu6(const Tensor& input);
/// relu6(x + 3) / 6 (MobileNetV3, Howard et al., 2019); gradient 1/6 strictly inside (-3, 3), else 0.
Tensor hardsigmoid(const Tensor& input);
/// x * relu6(x + 3) / 6 (MobileNetV3); gradient 0 below -3, x / 3 + 0.5 on [-3, 3], 1 above 3.
Tensor hardswish(const Tensor& input);
/// x for x > 0, alpha (exp(x) - 1) otherwise (Clevert et al., 2015).
Tensor elu(const Tensor& input, double alpha = 1.0);
/// x tanh(softplus(x)) (Misra, 2019).
Tensor mish(const Tensor& input);

}  // namespace adept::nn::functional
