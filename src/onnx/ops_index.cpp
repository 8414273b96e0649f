// ONNX indexing ops (https://onnx.ai/onnx/operators/): Gather, GatherElements, GatherND (batch_dims 0),
// ScatterElements (reduction none / add) and TopK. Negative indices count from the end of their axis.
#include "adept/ops/index.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

// int64 indices with negative ones wrapped by `dim`.
Tensor wrap_indices(const Tensor& idx, int64_t dim) {
  Tensor i = idx.to(kInt64);
  return where(lt(i, 0), add(i, dim), i);
}

// out shape = data.shape[:axis] + indices.shape + data.shape[axis+1:].
Out gather_op(const OpContext& c) {
  const Tensor &x = c.input(0), &idx = c.input(1);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim());
  Tensor flat = index_select(x, axis, wrap_indices(idx, x.size(axis)).reshape({-1}));
  Shape shape(x.sizes().begin(), x.sizes().begin() + axis);
  shape.insert(shape.end(), idx.sizes().begin(), idx.sizes().end());
  shape.insert(shape.end(), x.sizes().begin() + axis + 1, x.sizes().end());
  return {flat.reshape(shape)};
}

Out gather_elements_op(const OpContext& c) {
  const Tensor &x = c.input(0), &idx = c.input(1);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim());
  return {gather(x, axis, wrap_indices(idx, x.size(axis)))};
}

// GatherND with batch_dims = 0: indices (..., k) address the first k axes of data.
Out gather_nd_op(const OpContext& c) {
  const Tensor &x = c.input(0), &idx = c.input(1);
  ADEPT_CHECK(idx.dim() >= 1 && idx.size(-1) <= x.dim(), ShapeError,
              "GatherND: indices of shape (..., k) need rank >= 1 and k <= the data's rank {}", x.dim());
  int64_t k = idx.size(-1);
  std::vector<Tensor> per_axis;
  for (int64_t i = 0; i < k; ++i) per_axis.push_back(wrap_indices(idx.select(-1, i), x.size(i)));
  return {index(x, per_axis)};
}

Out scatter_elements_op(const OpContext& c) {
  const Tensor &x = c.input(0), &idx = c.input(1), &updates = c.input(2);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim());
  Tensor i = wrap_indices(idx, x.size(axis));
  if (c.attr_string("reduction", "none") == "add") return {scatter_add(x, axis, i, updates)};
  return {scatter(x, axis, i, updates)};
}

// Load-time checks of the attribute values the handlers above lack.
std::optional<std::string> gather_nd_check(const OpContext& c) {
  int64_t batch_dims = c.attr_int("batch_dims", 0);
  if (batch_dims != 0) return fmt::format("batch_dims {} (only 0 is supported)", batch_dims);
  return std::nullopt;
}

std::optional<std::string> scatter_elements_check(const OpContext& c) {
  std::string reduction = c.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add") return fmt::format("reduction '{}' (none and add are supported)", reduction);
  return std::nullopt;
}

// TopK-10+: k from the input (opset 1: attribute); largest / sorted from opset 11.
Out topk_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t k = c.opset() < 10 ? c.attr_int("k", 1) : 0;
  if (c.opset() >= 10) {
    const std::vector<int64_t> ks = c.input_ints(1);
    ADEPT_CHECK(ks.size() == 1, ShapeError, "TopK: K must hold one value, got {}", ks.size());
    k = ks[0];
  }
  int64_t axis = c.axis(c.attr_int("axis", -1), x.dim());
  auto [values, indices] = topk(x, k, axis, c.attr_int("largest", 1) != 0, true);
  return {values, indices};
}

}  // namespace

void register_index_ops(OpRegistry& r) {
  r.add("Gather", 1, {gather_op});
  r.add("GatherElements", 11, {gather_elements_op});
  r.add("GatherND", 11, {gather_nd_op, gather_nd_check});
  r.add("ScatterElements", 11, {scatter_elements_op, scatter_elements_check});
  r.add("TopK", 1, {topk_op, nullptr, {{1, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
