// dropout: the input times a Bernoulli(1 - p) mask scaled by 1 / (1 - p); the product's autograd
// applies the same mask to the gradient.
#include "adept/nn/functional/dropout.h"

#include "ops/helpers.h"

namespace adept::nn::functional {

Tensor dropout(const Tensor& input, double p, bool training) {
  ADEPT_CHECK(p >= 0 && p <= 1, ValueError, "dropout probability has to be between 0 and 1, but got {}", p);
  if (!training || p == 0 || input.numel() == 0) return input;
  ADEPT_CHECK(input.is_floating_point(), DtypeError, "dropout: expected a floating-point input, got '{}'",
              dtype_name(input.dtype()));
  if (p == 1) return input * zeros({}, TensorOptions(input.dtype()).set_device(input.device()));
  Tensor mask = empty(input.sizes(), TensorOptions(input.dtype()).set_device(input.device()));
  bernoulli_(mask, 1 - p);
  div_(mask, Scalar(1 - p));
  return input * mask;
}

}  // namespace adept::nn::functional
