// ONNX reductions and scans (https://onnx.ai/onnx/operators/): ReduceSum / Mean / Max / Min / Prod / L1 /
// L2 / LogSum / LogSumExp / SumSquare with axes as an attribute or (ReduceSum from opset 13, the others
// from 18) an optional input, keepdims, noop_with_empty_axes; ArgMax / ArgMin with select_last_index;
// CumSum with exclusive and reverse.
#include <algorithm>

#include "adept/ops/pointwise.h"
#include "adept/ops/reduce.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;
using Reducer = Tensor (*)(const Tensor& x, const Shape& dims, bool keepdim);

Tensor sum_r(const Tensor& x, const Shape& d, bool k) { return sum(x, d, k); }
Tensor max_r(const Tensor& x, const Shape& d, bool k) { return amax(x, d, k); }
Tensor min_r(const Tensor& x, const Shape& d, bool k) { return amin(x, d, k); }
Tensor l1_r(const Tensor& x, const Shape& d, bool k) { return sum(abs(x), d, k); }
Tensor l2_r(const Tensor& x, const Shape& d, bool k) { return sqrt(sum(mul(x, x), d, k)); }
Tensor log_sum_r(const Tensor& x, const Shape& d, bool k) { return log(sum(x, d, k)); }
Tensor log_sum_exp_r(const Tensor& x, const Shape& d, bool k) { return logsumexp(x, d, k); }
Tensor sum_square_r(const Tensor& x, const Shape& d, bool k) { return sum(mul(x, x), d, k); }
// Integer means divide in floating point and truncate back, as ONNX's reference.
Tensor mean_r(const Tensor& x, const Shape& d, bool k) {
  if (x.is_floating_point()) return mean(x, d, k);
  return mean(x.to(kFloat64), d, k).to(x.dtype());
}
Tensor prod_r(const Tensor& x, const Shape& d, bool k) {
  Tensor y = x;
  Shape sorted = d;
  std::sort(sorted.rbegin(), sorted.rend());  // innermost first, so the outer indices stay valid
  for (int64_t dim : sorted) y = prod(y, dim, true);
  if (!k)
    for (int64_t dim : sorted) y = y.squeeze(dim);
  return y;
}

// The axes given to a reduction: the attribute before `input_since`, input 1 from it (empty when absent).
std::vector<int64_t> reduce_axes(const OpContext& c, int64_t input_since) {
  if (c.opset() < input_since) return c.attr_ints("axes");
  return c.has_input(1) ? c.input_ints(1) : std::vector<int64_t>{};
}

// The axes to reduce: none means all axes, or no reduction with noop_with_empty_axes.
template <Reducer R, int64_t InputSince>
Out reduce_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> axes = reduce_axes(c, InputSince);
  bool keepdims = c.attr_int("keepdims", 1) != 0;
  if (axes.empty()) {
    if (c.opset() >= InputSince && c.attr_int("noop_with_empty_axes", 0) != 0) return {x};
    for (int64_t i = 0; i < x.dim(); ++i) axes.push_back(i);
  }
  return {R(x, c.axes(axes, x.dim()), keepdims)};
}

// Load-time check: axes that are an attribute or a constant input do not repeat.
template <int64_t InputSince>
std::optional<std::string> reduce_check(const OpContext& c) {
  c.check_distinct_axes(reduce_axes(c, InputSince));
  return std::nullopt;
}

template <bool Max>
Out arg_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim());
  bool keepdims = c.attr_int("keepdims", 1) != 0;
  if (c.attr_int("select_last_index", 0) == 0) return {Max ? argmax(x, axis, keepdims) : argmin(x, axis, keepdims)};
  Tensor flipped = flip(x, {axis});
  Tensor i = Max ? argmax(flipped, axis, keepdims) : argmin(flipped, axis, keepdims);
  return {rsub(i, x.size(axis) - 1)};
}

// CumSum: running sums along the axis given as input 1; reverse sums from the end, exclusive leaves the
// element itself out.
Out cumsum_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> axis = c.input_ints(1);
  ADEPT_CHECK(axis.size() == 1, ValueError, "CumSum: axis must hold one value, got {}", axis.size());
  int64_t dim = c.axis(axis[0], x.dim());
  bool reverse = c.attr_int("reverse", 0) != 0;
  Tensor in = reverse ? flip(x, {dim}) : x;
  Tensor y = cumsum(in, dim, x.dtype());
  if (c.attr_int("exclusive", 0) != 0) y = sub(y, in);
  return {reverse ? flip(y, {dim}) : y};
}

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  const std::vector<std::pair<int, InputRole>> axes_input = {{1, InputRole::Config}};
  r.add("ReduceSum", 1, {reduce_op<sum_r, 13>, reduce_check<13>, axes_input});
  r.add("ReduceMean", 1, {reduce_op<mean_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceMax", 1, {reduce_op<max_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceMin", 1, {reduce_op<min_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceProd", 1, {reduce_op<prod_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceL1", 1, {reduce_op<l1_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceL2", 1, {reduce_op<l2_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceLogSum", 1, {reduce_op<log_sum_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceLogSumExp", 1, {reduce_op<log_sum_exp_r, 18>, reduce_check<18>, axes_input});
  r.add("ReduceSumSquare", 1, {reduce_op<sum_square_r, 18>, reduce_check<18>, axes_input});
  r.add("ArgMax", 1, {arg_op<true>});
  r.add("ArgMin", 1, {arg_op<false>});
  r.add("CumSum", 11, {cumsum_op, nullptr, axes_input});
}

}  // namespace adept::onnx::detail
