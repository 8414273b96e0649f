// ONNX Softmax, LogSoftmax and Hardmax (https://onnx.ai/onnx/operators/onnx__Softmax.html). Before opset
// 13 the input is coerced to 2-d at `axis` (default 1) and normalized over the second dim; from 13 the
// op normalizes over `axis` (default -1).
#include "adept/ops/creation.h"
#include "adept/ops/index.h"
#include "adept/ops/reduce.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

Tensor softmax_f(const Tensor& x, int64_t dim) { return softmax(x, dim); }
Tensor log_softmax_f(const Tensor& x, int64_t dim) { return log_softmax(x, dim); }
// One-hot of the first maximum along dim.
Tensor hardmax_f(const Tensor& x, int64_t dim) {
  Tensor idx = argmax(x, dim, true);
  return scatter(zeros_like(x), dim, idx, 1);
}

template <Tensor (*F)(const Tensor&, int64_t)>
Out softmax_family(const OpContext& c) {
  const Tensor& x = c.input(0);
  if (c.opset() >= 13) return {F(x, c.axis(c.attr_int("axis", -1), x.dim()))};
  int64_t axis = x.dim() == 0 ? 0 : c.axis(c.attr_int("axis", 1), x.dim());
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.size(i);
  int64_t inner = outer == 0 ? 0 : x.numel() / outer;
  return {F(x.reshape({outer, inner}), 1).reshape(x.sizes())};
}

}  // namespace

void register_softmax_ops(OpRegistry& r) {
  r.add("Softmax", 1, {softmax_family<softmax_f>});
  r.add("LogSoftmax", 1, {softmax_family<log_softmax_f>});
  r.add("Hardmax", 1, {softmax_family<hardmax_f>});
}

}  // namespace adept::onnx::detail
