// ONNX Pad (https://onnx.ai/onnx/operators/onnx__Pad.html): pads as an attribute (before opset 11) or
// input, [x1_begin, x2_begin, ..., x1_end, x2_end] over all axes or over `axes` (opset 18); negative
// pads crop. Modes constant, reflect, edge and wrap (opset 19) on any rank: the non-constant modes gather
// each padded axis through host-computed source indices.
#include "adept/ops/creation.h"
#include "adept/ops/index.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

// Source index of output position i (in [-begin, dim + end)) of an axis of size dim.
int64_t source_index(int64_t i, int64_t dim, const std::string& mode) {
  if (mode == "edge") return std::clamp<int64_t>(i, 0, dim - 1);
  if (mode == "wrap") return ((i % dim) + dim) % dim;
  // reflect: mirror without repeating the edge; period 2 (dim - 1).
  if (dim == 1) return 0;
  int64_t period = 2 * (dim - 1), r = ((i % period) + period) % period;
  return r < dim ? r : period - r;
}

Out pad_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t rank = x.dim();
  std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> pads = c.opset() < 11 ? c.attr_ints("pads") : c.input_ints(1);
  double value = c.opset() < 11 ? c.attr_float("value", 0.0f)
                                : (c.has_input(2) && c.input(2).numel() ? c.input(2).item().to_double() : 0.0);
  std::vector<int64_t> axes;
  if (c.has_input(3))
    axes = c.axes(c.input_ints(3), rank);
  else
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  size_t n = axes.size();
  ADEPT_CHECK(pads.size() == 2 * n, ValueError, "Pad: pads must have 2 x {} = {} entries (begin and end per axis), got {}",
              n, 2 * n, pads.size());
  Tensor y = x;
  for (size_t k = 0; k < n; ++k) {
    int64_t axis = axes[k], begin = pads[k], end = pads[k + n];
    if (begin < 0) y = y.narrow(axis, -begin, y.size(axis) + begin), begin = 0;
    if (end < 0) y = y.narrow(axis, 0, y.size(axis) + end), end = 0;
    if (begin == 0 && end == 0) continue;
    if (mode == "constant") {
      Shape p(2 * static_cast<size_t>(rank), 0);  // torch's layout: last axis first
      p[2 * (rank - 1 - axis)] = begin;
      p[2 * (rank - 1 - axis) + 1] = end;
      y = pad(y, p, "constant", value);
      continue;
    }
    int64_t dim = y.size(axis);
    ADEPT_CHECK(dim > 0, ValueError, "Pad: mode '{}' cannot pad the empty axis {}", mode, axis);
    std::vector<int64_t> src;
    for (int64_t i = -begin; i < dim + end; ++i) src.push_back(source_index(i, dim, mode));
    y = index_select(y, axis, tensor(src, TensorOptions(kInt64).set_device(y.device())));
  }
  return {y};
}

// Load-time check: a known mode, and axes (a constant input 3) that do not repeat.
std::optional<std::string> pad_check(const OpContext& c) {
  std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") return "mode '" + mode + "'";
  if (c.has_input(3)) c.check_distinct_axes(c.input_ints(3));
  return std::nullopt;
}

}  // namespace

void register_pad_ops(OpRegistry& r) {
  r.add("Pad", 2, {pad_op, pad_check, {{1, InputRole::Config}, {2, InputRole::Config}, {3, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
