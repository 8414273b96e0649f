// ONNX ops that create tensors (https://onnx.ai/onnx/operators/): Constant (evaluated once at load),
// ConstantOfShape and Range. Results are CPU tensors; the evaluator moves them where they are used.
#include "adept/ops/creation.h"
#include "adept/ops/shape.h"
#include "onnx/proto.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

// Constant: exactly one of value (a tensor), value_float(s), value_int(s).
Out constant_op(const OpContext& c) {
  if (std::optional<Tensor> t = c.attr_tensor("value")) return {*t};
  if (c.has_attr("value_float")) return {scalar_tensor(static_cast<double>(c.attr_float("value_float", 0)), kFloat32)};
  if (c.has_attr("value_floats")) {
    std::vector<float> v = c.attr_floats("value_floats");
    return {tensor(v, TensorOptions(kFloat32))};
  }
  if (c.has_attr("value_int")) return {scalar_tensor(c.attr_int("value_int", 0), kInt64)};
  if (c.has_attr("value_ints")) return {tensor(c.attr_ints("value_ints"), TensorOptions(kInt64))};
  throw ValueError("Constant: none of value, value_float(s), value_int(s) is given");
}

std::optional<std::string> constant_check(const OpContext& c) {
  for (const auto& a : c.node().attribute()) {
    if (a.name() == "sparse_value" || a.name() == "value_string" || a.name() == "value_strings")
      return "attribute " + a.name() + " (sparse and string constants are not supported)";
    if (a.name() == "value" && !dtype_from_onnx(a.t().data_type()))
      return "a value of type " + onnx_type_name(a.t().data_type()) + ", which Adept does not have";
  }
  return std::nullopt;
}

// A tensor of the shape given by input 0, filled with `value` (a 1-element tensor; default float 0).
Out constant_of_shape_op(const OpContext& c) {
  std::vector<int64_t> shape = c.input_ints(0);
  std::optional<Tensor> value = c.attr_tensor("value");
  if (!value) return {zeros(shape, TensorOptions(kFloat32))};
  return {full(shape, value->reshape({-1}).item(), TensorOptions(value->dtype()))};
}

// Range: start, start + delta, ... before limit, of start's type: max(ceil((limit - start) / delta), 0)
// elements, so none when delta points away from limit (torch's arange raises there).
Out range_op(const OpContext& c) {
  const Tensor& start = c.input(0);
  Scalar s = start.item(), l = c.input(1).item(), d = c.input(2).item();
  // Compared, not subtracted (limit - start may overflow int64).
  const bool away = is_floating_point(start.dtype())
                        ? (d.to<double>() > 0 && l.to<double>() <= s.to<double>()) ||
                              (d.to<double>() < 0 && l.to<double>() >= s.to<double>())
                        : (d.to<int64_t>() > 0 && l.to<int64_t>() <= s.to<int64_t>()) ||
                              (d.to<int64_t>() < 0 && l.to<int64_t>() >= s.to<int64_t>());
  if (away) return {empty({0}, TensorOptions(start.dtype()))};
  return {arange(s, l, d, TensorOptions(start.dtype()))};
}

}  // namespace

void register_creation_ops(OpRegistry& r) {
  r.add("Constant", 1, {constant_op, constant_check});
  r.add("ConstantOfShape", 9, {constant_of_shape_op, nullptr, {{0, InputRole::Config}}});
  r.add("Range", 11,
        {range_op, nullptr, {{0, InputRole::Config}, {1, InputRole::Config}, {2, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
