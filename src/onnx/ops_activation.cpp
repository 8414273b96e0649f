// ONNX activation ops (https://onnx.ai/onnx/operators/) on Adept's activations, with the ONNX
// attribute defaults; those Adept has no direct op for (HardSigmoid's alpha/beta, Selu, PRelu ...) are
// short compositions, differentiable like the rest.
#include "adept/nn/functional/activation.h"
#include "adept/ops/pointwise.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;
namespace F = adept::nn::functional;

Out relu_op(const OpContext& c) { return {relu(c.input(0))}; }
Out sigmoid_op(const OpContext& c) { return {sigmoid(c.input(0))}; }
Out hardswish_op(const OpContext& c) { return {F::hardswish(c.input(0))}; }
Out mish_op(const OpContext& c) { return {F::mish(c.input(0))}; }
Out softplus_op(const OpContext& c) { return {softplus(c.input(0))}; }

Out leaky_relu_op(const OpContext& c) { return {leaky_relu(c.input(0), c.attr_float("alpha", 0.01f))}; }

Out elu_op(const OpContext& c) { return {F::elu(c.input(0), c.attr_float("alpha", 1.0f))}; }

// gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
Out selu_op(const OpContext& c) {
  double alpha = c.attr_float("alpha", 1.67326319217681884765625f);
  double gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  return {mul(F::elu(c.input(0), alpha), gamma)};
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Out celu_op(const OpContext& c) {
  double alpha = c.attr_float("alpha", 1.0f);
  const Tensor& x = c.input(0);
  return {mul(F::elu(div(x, alpha), 1.0), alpha)};
}

// max(0, min(1, alpha * x + beta)).
Out hardsigmoid_op(const OpContext& c) {
  double alpha = c.attr_float("alpha", 0.2f), beta = c.attr_float("beta", 0.5f);
  return {clamp(add(mul(c.input(0), alpha), beta), Scalar(0.0), Scalar(1.0))};
}

// x < 0 ? slope * x : x, slope broadcasting to x.
Out prelu_op(const OpContext& c) {
  const Tensor &x = c.input(0), &slope = c.input(1);
  return {where(lt(x, 0), mul(x, slope), x)};
}

Out thresholded_relu_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  return {where(gt(x, static_cast<double>(c.attr_float("alpha", 1.0f))), x, Scalar(0.0))};
}

Out gelu_op(const OpContext& c) { return {gelu(c.input(0), c.attr_string("approximate", "none"))}; }

}  // namespace

void register_activation_ops(OpRegistry& r) {
  r.add("Relu", 6, {relu_op});
  r.add("Sigmoid", 6, {sigmoid_op});
  r.add("LeakyRelu", 6, {leaky_relu_op});
  r.add("Elu", 6, {elu_op});
  r.add("Selu", 6, {selu_op});
  r.add("Celu", 12, {celu_op});
  r.add("HardSigmoid", 6, {hardsigmoid_op});
  r.add("HardSwish", 14, {hardswish_op});
  r.add("Softplus", 1, {softplus_op});
  r.add("Mish", 18, {mish_op});
  r.add("PRelu", 7, {prelu_op});
  r.add("ThresholdedRelu", 10, {thresholded_relu_op});
  r.add("Gelu", 20, {gelu_op});
}

}  // namespace adept::onnx::detail
