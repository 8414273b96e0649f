// Piecewise activations of nn::functional (hardtanh, relu6, hardsigmoid, hardswish, elu, mish).
// Forward values come from existing ops; where PyTorch's gradient at a kink differs from what
// composing ops would give, the gradient is recorded explicitly (still written with ops, so
// double backward works).
#include "adept/nn/functional/activation.h"

#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept::nn::functional {
namespace {

using Grads = std::vector<Tensor>;

void check_float(const Tensor& x, const char* op) {
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "{}: not implemented for '{}' (expected a floating-point input)", op,
              dtype_name(x.dtype()));
}

// out = clamp(x + shift, lo, hi) / divisor, with gradient g / divisor strictly inside (lo, hi) and 0
// elsewhere (PyTorch's hardtanh/hardsigmoid convention at the kinks).
Tensor scaled_clamp(const Tensor& x, double shift, double lo, double hi, double divisor, const char* node) {
  Tensor out;
  {
    NoGradGuard ng;
    Tensor v = shift == 0 ? x : x + shift;
    // Integer input (hardtanh, relu6) stays integer, as PyTorch: clamp with integer bounds.
    const bool fl = x.is_floating_point();
    out = clamp(v, fl ? Scalar(lo) : Scalar(static_cast<int64_t>(lo)), fl ? Scalar(hi) : Scalar(static_cast<int64_t>(hi)));
    if (divisor != 1) out = out / divisor;
  }
  if (autograd::needs_grad({&x})) {
    autograd::SavedTensor sx(x);
    autograd::record(node, {x}, {out}, [sx, shift, lo, hi, divisor](const Grads& g) {
      Tensor xx = sx.get().detach();
      Tensor inside = logical_and(gt(xx, lo - shift), lt(xx, hi - shift));
      Tensor zero = zeros({}, TensorOptions(g[0].dtype()).set_device(g[0].device()));
      // PyTorch scales by the float constant 1.0f / divisor, in float64 too.
      return Grads{where(inside, divisor == 1 ? g[0] : g[0] * static_cast<double>(1.0f / static_cast<float>(divisor)),
                         zero)};
    });
  }
  return out;
}

}  // namespace

Tensor hardtanh(const Tensor& input, double min_val, double max_val) {
  ADEPT_CHECK(min_val <= max_val, ValueError, "hardtanh: min_val ({}) cannot be greater than max_val ({})", min_val,
              max_val);
  return scaled_clamp(input, 0, min_val, max_val, 1, "HardtanhBackward0");
}

Tensor relu6(const Tensor& input) {
  return scaled_clamp(input, 0, 0, 6, 1, "HardtanhBackward0");
}

Tensor hardsigmoid(const Tensor& input) {
  check_float(input, "hardsigmoid");
  return scaled_clamp(input, 3, 0, 6, 6, "HardsigmoidBackward0");
}

Tensor hardswish(const Tensor& input) {
  check_float(input, "hardswish");
  // x * clamp(x + 3, 0, 6) / 6 differentiates to PyTorch's piecewise gradient, kinks included
  // (clamp passes the gradient on the closed interval [-3, 3]).
  return input * clamp(input + 3, Scalar(0), Scalar(6)) * (1.0 / 6);
}

Tensor elu(const Tensor& input, double alpha) {
  check_float(input, "elu");
  const autocast::Scope in_op(autocast::Policy::Exclude, {&input});  // no autocast list has it: input's dtype
  // expm1 of min(x, 0): the branch not taken stays finite, so its zero gradient never meets inf.
  Tensor neg_part = expm1(clamp(input, std::nullopt, Scalar(0))) * alpha;
  return where(gt(input, 0), input, neg_part);
}

Tensor mish(const Tensor& input) {
  check_float(input, "mish");
  const autocast::Scope in_op(autocast::Policy::Exclude, {&input});  // no autocast list has it: input's dtype
  return input * tanh(softplus(input));
}

}  // namespace adept::nn::functional
