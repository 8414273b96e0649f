// ONNX ops that rearrange or describe a tensor's shape (https://onnx.ai/onnx/operators/): Reshape,
// Transpose, Flatten, Squeeze, Unsqueeze, Expand, Tile, DepthToSpace, SpaceToDepth, Concat, Split, Slice,
// Shape, Size. Shape values
// (Reshape's shape, Slice's starts ...) are read on the host; Shape and Size return int64 CPU tensors.
#include <algorithm>
#include <limits>

#include "adept/ops/creation.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

Tensor int64_vector(const std::vector<int64_t>& v) { return tensor(v, TensorOptions(kInt64)); }

// Axes given as an attribute (before `input_since`) or as the optional input `input` (after).
std::optional<std::vector<int64_t>> axes_of(const OpContext& c, int64_t input_since, size_t input) {
  if (c.opset() < input_since) {
    if (!c.has_attr("axes")) return std::nullopt;
    return c.attr_ints("axes");
  }
  if (!c.has_input(input)) return std::nullopt;
  return c.input_ints(input);
}

// Reshape-5+: 0 copies the input's dim (unless allowzero, opset 14), -1 is inferred.
Out reshape_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> shape = c.input_ints(1);
  if (c.attr_int("allowzero", 0) == 0)
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] == 0) {
        ADEPT_CHECK(static_cast<int64_t>(i) < x.dim(), ShapeError,
                    "Reshape: shape[{}] = 0 copies a dim the rank-{} input does not have", i, x.dim());
        shape[i] = x.size(static_cast<int64_t>(i));
      }
  return {reshape(x, shape)};
}

Out transpose_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  Shape perm(x.dim());
  for (int64_t i = 0; i < x.dim(); ++i) perm[i] = x.dim() - 1 - i;
  return {permute(x, c.attr_ints("perm", perm))};
}

// (d0 ... d_{axis-1}) x (d_axis ... d_n) as a 2-d tensor.
Out flatten_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) axis += x.dim();
  ADEPT_CHECK(axis >= 0 && axis <= x.dim(), IndexError, "Flatten: axis {} is out of range for rank {}",
              c.attr_int("axis", 1), x.dim());
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.size(i);
  return {reshape(x, {outer, outer == 0 ? 0 : x.numel() / outer})};
}

Out squeeze_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  std::optional<std::vector<int64_t>> axes = axes_of(c, 13, 1);
  if (!axes) return {squeeze(x)};
  Shape shape;
  std::vector<bool> drop(x.dim(), false);
  for (int64_t d : c.axes(*axes, x.dim())) {
    ADEPT_CHECK(x.size(d) == 1, ShapeError, "Squeeze: axis {} has size {}, not 1", d, x.size(d));
    drop[d] = true;
  }
  for (int64_t i = 0; i < x.dim(); ++i)
    if (!drop[i]) shape.push_back(x.size(i));
  return {reshape(x, shape)};
}

Out unsqueeze_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  std::optional<std::vector<int64_t>> given = axes_of(c, 13, 1);
  ADEPT_CHECK(given.has_value(), ValueError, "Unsqueeze: axes are required (attribute before opset 13, input 1 from 13)");
  std::vector<int64_t> axes = c.axes(*given, x.dim() + static_cast<int64_t>(given->size()));
  std::sort(axes.begin(), axes.end());
  Tensor y = x;
  for (int64_t a : axes) y = unsqueeze(y, a);
  return {y};
}

// Load-time check of Squeeze and Unsqueeze: axes that are an attribute or a constant input do not repeat.
std::optional<std::string> squeeze_check(const OpContext& c) {
  if (auto axes = axes_of(c, 13, 1)) c.check_distinct_axes(*axes);
  return std::nullopt;
}

// Expand: numpy broadcasting of the input and `shape` (either may have the larger dims).
Out expand_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  Shape target = broadcast_shapes(x.sizes(), c.input_ints(1));
  return {expand(x, target)};
}

Out tile_op(const OpContext& c) { return {tile(c.input(0), c.input_ints(1))}; }

Out concat_op(const OpContext& c) {
  std::vector<Tensor> xs = c.inputs();
  int64_t axis = c.axis(c.attr_int("axis", 0), xs.at(0).dim());
  return {cat(xs, axis)};
}

// Split: sizes from the `split` attribute (before opset 13) or input (13+), else equal parts over the
// outputs (num_outputs, opset 18: the last part smaller when the axis does not divide).
Out split_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t axis = c.axis(c.attr_int("axis", 0), x.dim());
  std::vector<int64_t> sizes;
  if (c.opset() < 13) sizes = c.attr_ints("split");
  else if (c.has_input(1)) sizes = c.input_ints(1);
  if (sizes.empty()) {
    int64_t parts = c.opset() >= 18 && c.has_attr("num_outputs") ? c.attr_int("num_outputs", 1)
                                                                   : static_cast<int64_t>(c.num_outputs());
    ADEPT_CHECK(parts >= 1, ValueError, "Split: needs at least 1 output (num_outputs or the node's outputs), got {}",
                parts);
    int64_t dim = x.size(axis), chunk = (dim + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  return split(x, sizes, axis);
}

// Slice: per axis, start and end are clamped as the spec says (to [0, dim] for a positive step, to
// [0, dim - 1] and [-1, dim - 1] for a negative one); a negative step reads the flipped axis.
Tensor slice_axis(const Tensor& x, int64_t axis, int64_t start, int64_t end, int64_t step) {
  ADEPT_CHECK(step != 0 && step != std::numeric_limits<int64_t>::min(), ValueError,
              "Slice: steps must be non-zero (and above INT64_MIN), got {} on axis {}", step, axis);
  int64_t dim = x.size(axis);
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return slice(x, axis, start, std::max(start, end), step);
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  int64_t count = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  Tensor flipped = flip(x, {axis});
  int64_t first = dim - 1 - start;  // start's position in the flipped axis
  return slice(flipped, axis, first, std::max(first, first + (count - 1) * (-step) + 1), -step);
}

// Slice's axes: the attribute before opset 10, input 3 from 10 (nullopt when absent: the leading axes).
std::optional<std::vector<int64_t>> slice_axes(const OpContext& c) {
  if (c.opset() < 10) return c.has_attr("axes") ? std::optional(c.attr_ints("axes")) : std::nullopt;
  return c.has_input(3) ? std::optional(c.input_ints(3)) : std::nullopt;
}

Out slice_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  std::vector<int64_t> starts, ends, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
  } else {
    starts = c.input_ints(1);
    ends = c.input_ints(2);
    if (c.has_input(4)) steps = c.input_ints(4);
  }
  std::vector<int64_t> axes;
  if (auto given = slice_axes(c); given && !given->empty()) axes = c.axes(*given, x.dim());
  else
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  ADEPT_CHECK(ends.size() == starts.size() && axes.size() == starts.size() && steps.size() == starts.size(),
              ValueError, "Slice: starts, ends, axes and steps must have the same length, got {}, {}, {} and {}",
              starts.size(), ends.size(), axes.size(), steps.size());
  Tensor y = x;
  for (size_t i = 0; i < starts.size(); ++i) y = slice_axis(y, axes[i], starts[i], ends[i], steps[i]);
  return {y};
}

std::optional<std::string> slice_check(const OpContext& c) {
  if (auto axes = slice_axes(c)) c.check_distinct_axes(*axes);
  return std::nullopt;
}

// Shape-15: dims [start, end) with negative values counting from the end, clamped to [0, rank].
Out shape_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t rank = x.dim();
  auto clamp_index = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
  int64_t start = clamp_index(c.attr_int("start", 0));
  int64_t end = c.has_attr("end") ? clamp_index(c.attr_int("end", rank)) : rank;
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(x.size(i));
  return {int64_vector(dims)};
}

// DepthToSpace: (N, C, H, W) -> (N, C / b^2, H b, W b); mode DCR reads the channel as (b, b, C / b^2),
// CRD as (C / b^2, b, b).
Out depth_to_space_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  ADEPT_CHECK(x.dim() == 4, ShapeError, "DepthToSpace: the input must be 4-d, got rank {}", x.dim());
  int64_t b = c.attr_int("blocksize", 0), n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
  ADEPT_CHECK(b >= 1 && ch % (b * b) == 0, ValueError, "DepthToSpace: {} channels do not split into blocks of {}^2",
              ch, b);
  bool dcr = c.attr_string("mode", "DCR") == "DCR";
  Tensor t = dcr ? permute(reshape(x, {n, b, b, ch / (b * b), h, w}), {0, 3, 4, 1, 5, 2})
                 : permute(reshape(x, {n, ch / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
  return {reshape(t, {n, ch / (b * b), h * b, w * b})};
}

// SpaceToDepth: (N, C, H, W) -> (N, C b^2, H / b, W / b), the inverse of DepthToSpace in DCR mode.
Out space_to_depth_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  ADEPT_CHECK(x.dim() == 4, ShapeError, "SpaceToDepth: the input must be 4-d, got rank {}", x.dim());
  int64_t b = c.attr_int("blocksize", 0), n = x.size(0), ch = x.size(1), h = x.size(2), w = x.size(3);
  ADEPT_CHECK(b >= 1 && h % b == 0 && w % b == 0, ValueError, "SpaceToDepth: {}x{} does not split into blocks of {}",
              h, w, b);
  Tensor t = permute(reshape(x, {n, ch, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return {reshape(t, {n, ch * b * b, h / b, w / b})};
}

Out size_op(const OpContext& c) { return {scalar_tensor(c.input(0).numel(), TensorOptions(kInt64))}; }

}  // namespace

void register_shape_ops(OpRegistry& r) {
  const std::vector<std::pair<int, InputRole>> config1 = {{1, InputRole::Config}};
  r.add("Reshape", 5, {reshape_op, nullptr, config1});
  r.add("Transpose", 1, {transpose_op});
  r.add("Flatten", 1, {flatten_op});
  r.add("Squeeze", 1, {squeeze_op, squeeze_check, config1});
  r.add("Unsqueeze", 1, {unsqueeze_op, squeeze_check, config1});
  r.add("Expand", 8, {expand_op, nullptr, config1});
  r.add("Tile", 6, {tile_op, nullptr, config1});
  r.add("DepthToSpace", 1, {depth_to_space_op});
  r.add("SpaceToDepth", 1, {space_to_depth_op});
  r.add("Concat", 4, {concat_op});
  r.add("Split", 2, {split_op, nullptr, config1});
  r.add("Slice", 1,
        {slice_op, slice_check,
         {{1, InputRole::Config}, {2, InputRole::Config}, {3, InputRole::Config}, {4, InputRole::Config}}});
  // Shape and Size read only their input's sizes: no device move.
  r.add("Shape", 1, {shape_op, nullptr, {{0, InputRole::Config}}});
  r.add("Size", 1, {size_op, nullptr, {{0, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
