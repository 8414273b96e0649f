// Elementwise ONNX ops (https://onnx.ai/onnx/operators/): arithmetic with numpy broadcasting, math
// functions, comparisons, logic, bitwise ops, Where, Clip, Cast and CastLike. ONNX gives both operands of
// a binary op one type, so Adept's promotion never changes a result's dtype here (Pow excepted).
#include <limits>

#include "adept/ops/creation.h"
#include "adept/ops/pointwise.h"
#include "onnx/proto.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

template <auto F>
Out unary(const OpContext& c) {
  return {F(c.input(0))};
}

template <auto F>
Out binary(const OpContext& c) {
  return {F(c.input(0), c.input(1))};
}

Tensor add2(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor sub2(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor mul2(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor eq2(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor lt2(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor le2(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor gt2(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor ge2(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor round_half_even(const Tensor& x) { return round(x); }
Tensor softsign(const Tensor& x) { return div(x, add(abs(x), 1)); }

// Div: integer operands truncate toward zero (C semantics, as ONNX's reference).
Out div_op(const OpContext& c) {
  const Tensor &a = c.input(0), &b = c.input(1);
  if (is_integral(a.dtype(), true)) return {div(a, b, std::string("trunc"))};
  return {div(a, b)};
}

// Mod: fmod = 0 takes the divisor's sign (Python's %), fmod = 1 the dividend's (C's fmod).
Out mod_op(const OpContext& c) {
  const Tensor &a = c.input(0), &b = c.input(1);
  if (c.attr_int("fmod", 0) == 0) return {remainder(a, b)};
  if (is_integral(a.dtype(), true)) return {sub(a, mul(div(a, b, std::string("trunc")), b))};
  return {sub(a, mul(trunc(div(a, b)), b))};
}

// Pow: the result has the base's type whatever the exponent's (Pow-12+).
Out pow_op(const OpContext& c) {
  const Tensor &a = c.input(0), &b = c.input(1);
  return {pow(a, b).to(a.dtype())};
}

// Sum, Mean, Max, Min over any number of inputs, with broadcasting.
template <auto F>
Tensor fold(const OpContext& c) {
  std::vector<Tensor> xs = c.inputs();
  Tensor acc = xs.at(0);
  for (size_t i = 1; i < xs.size(); ++i) acc = F(acc, xs[i]);
  return acc;
}
Out sum_op(const OpContext& c) { return {fold<add2>(c)}; }
Out max_op(const OpContext& c) { return {fold<maximum>(c)}; }
Out min_op(const OpContext& c) { return {fold<minimum>(c)}; }
Out mean_op(const OpContext& c) { return {div(fold<add2>(c), static_cast<int64_t>(c.inputs().size()))}; }

Out isinf_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  bool neg = c.attr_int("detect_negative", 1) != 0, pos = c.attr_int("detect_positive", 1) != 0;
  if (neg && pos) return {isinf(x)};
  if (neg) return {isneginf(x)};
  if (pos) return {isposinf(x)};
  return {zeros(x.sizes(), TensorOptions(kBool).set_device(x.device()))};
}

Out where_op(const OpContext& c) { return {where(c.input(0), c.input(1), c.input(2))}; }

// Sign: NaN stays NaN, as ONNX's reference (numpy's sign) and onnxruntime give (torch.sign, and so Adept's
// sign, give 0).
Out sign_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  if (!is_floating_point(x.dtype())) return {sign(x)};
  return {where(isnan(x), x, sign(x))};
}

// Clip: bounds from attributes before opset 11, from optional scalar inputs after; min > max gives max.
Out clip_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  auto bound = [&](size_t i, const char* attr, float fallback) -> std::optional<Scalar> {
    if (c.opset() < 11) {
      if (!c.has_attr(attr)) return std::nullopt;
      return Scalar(static_cast<double>(c.attr_float(attr, fallback)));
    }
    if (!c.has_input(i)) return std::nullopt;
    Scalar v = c.input(i).item();
    return x.is_floating_point() ? Scalar(v.to_double()) : Scalar(v.to_int64());
  };
  std::optional<Scalar> lo = bound(1, "min", std::numeric_limits<float>::lowest());
  std::optional<Scalar> hi = bound(2, "max", std::numeric_limits<float>::max());
  if (!lo && !hi) return {x};
  return {clamp(x, lo, hi)};
}

// The dtype of Cast's `to`; the check below has already refused the ones Adept lacks.
Out cast_op(const OpContext& c) {
  std::optional<Dtype> to = dtype_from_onnx(static_cast<int32_t>(c.attr_int("to", 0)));
  ADEPT_CHECK(to.has_value(), ValueError, "Cast: attribute 'to' is missing or names no element type");
  return {c.input(0).to(*to)};
}

std::optional<std::string> cast_check(const OpContext& c) {
  for (const auto& a : c.node().attribute())
    if (a.name() == "to" && !dtype_from_onnx(static_cast<int32_t>(a.i())))
      return "cast to " + onnx_type_name(static_cast<int32_t>(a.i())) + ", which Adept does not have";
  return std::nullopt;
}

Out castlike_op(const OpContext& c) { return {c.input(0).to(c.input(1).dtype())}; }

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  const std::pair<const char*, OpFn> binaries[] = {
      {"Add", binary<add2>},          {"Sub", binary<sub2>},          {"Mul", binary<mul2>},
      {"Equal", binary<eq2>},         {"Less", binary<lt2>},          {"LessOrEqual", binary<le2>},
      {"Greater", binary<gt2>},       {"GreaterOrEqual", binary<ge2>}, {"And", binary<logical_and>},
      {"Or", binary<logical_or>},     {"Xor", binary<logical_xor>},   {"BitwiseAnd", binary<bitwise_and>},
      {"BitwiseOr", binary<bitwise_or>}, {"BitwiseXor", binary<bitwise_xor>}, {"Div", div_op},
      {"Mod", mod_op},                {"Pow", pow_op},                {"Sum", sum_op},
      {"Mean", mean_op},              {"Max", max_op},                {"Min", min_op},
      {"Where", where_op}};
  for (const auto& [name, fn] : binaries) r.add(name, 7, {fn});
  const std::pair<const char*, OpFn> unaries[] = {
      {"Neg", unary<neg>},         {"Abs", unary<abs>},           {"Sign", sign_op},
      {"Floor", unary<floor>},     {"Ceil", unary<ceil>},         {"Round", unary<round_half_even>},
      {"Exp", unary<exp>},         {"Log", unary<log>},           {"Sqrt", unary<sqrt>},
      {"Reciprocal", unary<reciprocal>}, {"Sin", unary<sin>},     {"Cos", unary<cos>},
      {"Tan", unary<tan>},         {"Atan", unary<atan>},         {"Tanh", unary<tanh>},
      {"Erf", unary<erf>},         {"Not", unary<logical_not>},   {"BitwiseNot", unary<bitwise_not>},
      {"IsNaN", unary<isnan>},     {"Softsign", unary<softsign>}, {"IsInf", isinf_op}};
  for (const auto& [name, fn] : unaries) r.add(name, 6, {fn});
  r.add("Clip", 6, {clip_op, nullptr, {{1, InputRole::Config}, {2, InputRole::Config}}});
  r.add("Cast", 6, {cast_op, cast_check});
  r.add("CastLike", 15, {castlike_op, nullptr, {{1, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
