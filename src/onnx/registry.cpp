// The op registry and the node context handlers read their inputs and attributes from.
#include "onnx/registry.h"

#include <algorithm>

#include <fmt/ranges.h>

#include "adept/ops/creation.h"
#include "onnx/proto.h"

namespace adept::onnx::detail {

const Tensor& OpContext::input(size_t i) const {
  ADEPT_CHECK(has_input(i), ValueError, "{}: input {} is required but not given", node_.op_type(), i);
  return inputs_[i];
}

std::vector<Tensor> OpContext::inputs() const {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs_)
    if (t.defined()) out.push_back(t);
  ADEPT_CHECK(!out.empty(), ValueError, "{}: needs at least one input", node_.op_type());
  return out;
}

std::vector<int64_t> OpContext::input_ints(size_t i) const {
  const Tensor& t = input(i);
  ADEPT_CHECK(is_integral(t.dtype(), false), DtypeError, "{}: input {} must be an integer tensor, got {}",
              node_.op_type(), i, dtype_name(t.dtype()));
  Tensor host = t.to(kCPU).to(kInt64).contiguous();
  const int64_t* p = host.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + host.numel());
}

std::vector<double> OpContext::input_doubles(size_t i) const {
  Tensor host = input(i).to(kCPU).to(kFloat64).contiguous();
  const double* p = host.data_ptr<double>();
  return std::vector<double>(p, p + host.numel());
}

const ::onnx::AttributeProto* OpContext::find(const std::string& name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

const ::onnx::AttributeProto& OpContext::typed(const std::string& name, int type) const {
  const ::onnx::AttributeProto* a = find(name);
  ADEPT_CHECK(a->type() == type, ValueError, "{}: attribute '{}' has type {}, expected {}", node_.op_type(), name,
              ::onnx::AttributeProto::AttributeType_Name(a->type()),
              ::onnx::AttributeProto::AttributeType_Name(static_cast<::onnx::AttributeProto::AttributeType>(type)));
  return *a;
}

int64_t OpContext::attr_int(const std::string& name, int64_t fallback) const {
  return find(name) ? typed(name, ::onnx::AttributeProto::INT).i() : fallback;
}

float OpContext::attr_float(const std::string& name, float fallback) const {
  return find(name) ? typed(name, ::onnx::AttributeProto::FLOAT).f() : fallback;
}

std::string OpContext::attr_string(const std::string& name, const std::string& fallback) const {
  return find(name) ? typed(name, ::onnx::AttributeProto::STRING).s() : fallback;
}

std::vector<int64_t> OpContext::attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
  if (!find(name)) return fallback;
  const auto& a = typed(name, ::onnx::AttributeProto::INTS);
  return std::vector<int64_t>(a.ints().begin(), a.ints().end());
}

std::vector<float> OpContext::attr_floats(const std::string& name, std::vector<float> fallback) const {
  if (!find(name)) return fallback;
  const auto& a = typed(name, ::onnx::AttributeProto::FLOATS);
  return std::vector<float>(a.floats().begin(), a.floats().end());
}

std::optional<Tensor> OpContext::attr_tensor(const std::string& name) const {
  if (!find(name)) return std::nullopt;
  return tensor_from_proto(typed(name, ::onnx::AttributeProto::TENSOR).t(),
                           fmt::format("{} attribute '{}'", node_.op_type(), name));
}

int64_t OpContext::axis(int64_t axis, int64_t rank) const {
  ADEPT_CHECK(axis >= -rank && axis < rank, IndexError, "{}: axis {} is out of range for a rank-{} input",
              node_.op_type(), axis, rank);
  return axis < 0 ? axis + rank : axis;
}

namespace {

// The first value of `values` that occurs twice, or nullopt.
std::optional<int64_t> repeated(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  auto it = std::adjacent_find(values.begin(), values.end());
  return it == values.end() ? std::nullopt : std::optional<int64_t>(*it);
}

}  // namespace

std::vector<int64_t> OpContext::axes(const std::vector<int64_t>& values, int64_t rank) const {
  std::vector<int64_t> out;
  for (int64_t a : values) out.push_back(axis(a, rank));
  if (auto twice = repeated(out))
    throw ValueError(fmt::format("{}: axes [{}] name axis {} twice (input rank {}); ONNX requires distinct axes",
                                 node_.op_type(), fmt::join(values, ", "), *twice, rank));
  return out;
}

void OpContext::check_distinct_axes(const std::vector<int64_t>& values) const {
  if (auto twice = repeated(values))
    throw ValueError(fmt::format("{}: axes [{}] repeat {}; ONNX requires distinct axes", node_.op_type(),
                                 fmt::join(values, ", "), *twice));
}

InputRole OpEntry::role(int input) const {
  for (const auto& [i, r] : roles)
    if (i == input) return r;
  return InputRole::Data;
}

void OpRegistry::add(const std::string& op_type, int64_t since, OpEntry entry) {
  ops_[op_type][since] = std::move(entry);
}

void OpRegistry::add(const std::string& op_type, std::initializer_list<int64_t> since, const OpEntry& entry) {
  for (int64_t v : since) add(op_type, v, entry);
}

const OpEntry* OpRegistry::find(const std::string& op_type, int64_t opset) const {
  auto it = ops_.find(op_type);
  if (it == ops_.end()) return nullptr;
  auto v = it->second.upper_bound(opset);  // first since_version > opset
  if (v == it->second.begin()) return nullptr;
  return &std::prev(v)->second;
}

const OpRegistry& registry() {
  static const OpRegistry r = [] {
    OpRegistry reg;
    register_elementwise_ops(reg);
    register_activation_ops(reg);
    register_conv_ops(reg);
    register_pool_ops(reg);
    register_norm_ops(reg);
    register_shape_ops(reg);
    register_index_ops(reg);
    register_reduce_ops(reg);
    register_linalg_ops(reg);
    register_softmax_ops(reg);
    register_creation_ops(reg);
    register_resize_ops(reg);
    register_pad_ops(reg);
    register_misc_ops(reg);
    return reg;
  }();
  return r;
}

}  // namespace adept::onnx::detail
