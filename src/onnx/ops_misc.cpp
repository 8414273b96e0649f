// ONNX Identity and Dropout (https://onnx.ai/onnx/operators/): Dropout is the identity unless
// training_mode (opset 12+, an input) is true, and its optional mask output is all true then.
#include "adept/ops/creation.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/random.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

Out identity_op(const OpContext& c) { return {c.input(0)}; }

Out dropout_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  bool training = c.opset() >= 12 && c.has_input(2) && c.input(2).item().to_bool();
  double ratio = c.opset() >= 12 ? (c.has_input(1) ? c.input(1).item().to_double() : 0.5) : c.attr_float("ratio", 0.5f);
  if (!training || ratio == 0.0) {
    if (c.num_outputs() < 2) return {x};
    return {x, ones(x.sizes(), TensorOptions(kBool).set_device(x.device()))};
  }
  Tensor keep = ge(rand(x.sizes(), TensorOptions(x.dtype()).set_device(x.device())), ratio);
  return {div(mul(x, keep), 1.0 - ratio), keep};
}

}  // namespace

void register_misc_ops(OpRegistry& r) {
  r.add("Identity", 1, {identity_op});
  r.add("Dropout", 7, {dropout_op, nullptr, {{1, InputRole::Config}, {2, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
