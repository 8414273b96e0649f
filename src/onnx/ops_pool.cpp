// ONNX pooling (https://onnx.ai/onnx/operators/onnx__MaxPool.html, onnx__AveragePool.html, global pools)
// over 1 to 3 spatial axes. The output size follows the spec (ceil_mode drops a last window that would
// start in the end padding); the padding that size needs is made explicit and the pool runs unpadded on
// Adept's 2-d kernels, two spatial axes at a time and then one (max and sum over a box are separable).
// Average pooling is a sum (a convolution with a ones kernel, which covers dilations) divided by the count
// of the window's positions that count (the input, plus the declared pads with count_include_pad).
#include <limits>

#include <fmt/ranges.h>

#include "adept/ops/conv.h"
#include "adept/ops/creation.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/pooling.h"
#include "adept/ops/reduce.h"
#include "adept/ops/shape.h"
#include "onnx/spatial.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

struct PoolPlan {
  Window w;                           // pad_end set to what the output size needs
  std::vector<int64_t> declared_end;  // the end pads of the attributes (auto_pad resolved)
  Shape out;                          // (N, C, output spatial sizes)
  bool empty = false;                 // no output positions on some axis (the window passes the padded input)
};

PoolPlan plan_pool(const OpContext& c, const Tensor& x) {
  ADEPT_CHECK(x.dim() >= 3 && x.dim() <= 5, NotImplementedForDevice,
              "{}: inputs (N, C, D1 [, D2 [, D3]]) are supported, got rank {}", c.node().op_type(), x.dim());
  Shape in(x.sizes().begin() + 2, x.sizes().end());
  PoolPlan p;
  p.w = read_window(c, in, c.attr_ints("kernel_shape"));
  p.declared_end = p.w.pad_end;
  bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  p.out = {x.size(0), x.size(1)};
  for (size_t i = 0; i < in.size(); ++i) {
    const Window& w = p.w;
    int64_t room = in[i] + w.pad_begin[i] + w.pad_end[i] - w.span(i);
    // floor (ceil_mode: ceil) of room / stride, plus 1 output positions, with room negative too: none is an empty
    // output (as ONNX's reference and onnxruntime give), fewer an error; ceil_mode's last window may then pass
    // the padded input, as it may anyway (the end padding below covers it).
    const int64_t s = w.strides[i];
    const int64_t q = room >= 0 ? (ceil_mode ? (room + s - 1) / s : room / s)
                                : (ceil_mode ? -((-room) / s) : -((-room + s - 1) / s));
    int64_t out = q + 1;
    ADEPT_CHECK(out >= 0, ShapeError,
                "{}: the window ({}) must fit the padded input, which is {} on spatial axis {}", c.node().op_type(),
                w.span(i), in[i] + w.pad_begin[i] + w.pad_end[i], i);
    if (out == 0) {
      p.empty = true;
      p.out.push_back(0);
      continue;
    }
    if (ceil_mode && (out - 1) * w.strides[i] >= in[i] + w.pad_begin[i]) --out;
    p.w.pad_end[i] = std::max<int64_t>(0, (out - 1) * w.strides[i] + w.span(i) - in[i] - w.pad_begin[i]);
    p.out.push_back(out);
  }
  return p;
}

// The 2-axis window of spatial axes (a, b) of w; -1 stands for a unit axis (kernel 1, no padding).
Window pick(const Window& w, int a, int b) {
  Window r;
  for (int i : {a, b}) {
    bool unit = i < 0;
    r.kernel.push_back(unit ? 1 : w.kernel[i]);
    r.strides.push_back(unit ? 1 : w.strides[i]);
    r.dilations.push_back(unit ? 1 : w.dilations[i]);
    r.pad_begin.push_back(unit ? 0 : w.pad_begin[i]);
    r.pad_end.push_back(unit ? 0 : w.pad_end[i]);
  }
  return r;
}

// A pool over the last two axes of a (N, C, A, B) tensor with an explicitly padded 2-axis window.
using Stage = Tensor (*)(const Tensor& x4, const Window& w2);

Tensor max_stage(const Tensor& x4, const Window& w) {
  Tensor padded = pad_2d(x4, w.pad_begin, w.pad_end, -std::numeric_limits<double>::infinity());
  return max_pool2d(padded, IntPair(w.kernel[0], w.kernel[1]), IntPair(w.strides[0], w.strides[1]), 0,
                    IntPair(w.dilations[0], w.dilations[1]));
}

Tensor sum_stage(const Tensor& x4, const Window& w) {
  int64_t n = x4.size(0), ch = x4.size(1);
  Tensor padded = pad_2d(x4, w.pad_begin, w.pad_end, 0.0);
  Tensor planes = padded.reshape({n * ch, 1, padded.size(2), padded.size(3)});
  Tensor kernel = ones({1, 1, w.kernel[0], w.kernel[1]}, TensorOptions(x4.dtype()).set_device(x4.device()));
  Tensor y = conv2d(planes, kernel, Tensor(), IntPair(w.strides[0], w.strides[1]), 0,
                    IntPair(w.dilations[0], w.dilations[1]));
  return y.reshape({n, ch, y.size(2), y.size(3)});
}

// Runs `stage` over every spatial axis of x (N, C, *spatial): the last two together (as planes of a
// (N, C * leading, A, B) tensor), then each leading axis alone.
Tensor separable(const Tensor& x, const Window& w, Stage stage) {
  int64_t r = x.dim() - 2, n = x.size(0), ch = x.size(1);
  if (r == 1) return stage(x.unsqueeze(2), pick(w, -1, 0)).squeeze(2);
  Shape lead(x.sizes().begin() + 2, x.sizes().end() - 2);
  int64_t lead_numel = 1;
  for (int64_t d : lead) lead_numel *= d;
  Tensor y = stage(x.reshape({n, ch * lead_numel, x.size(-2), x.size(-1)}), pick(w, int(r) - 2, int(r) - 1));
  Shape shape = {n, ch};
  shape.insert(shape.end(), lead.begin(), lead.end());
  shape.push_back(y.size(2));
  shape.push_back(y.size(3));
  y = y.reshape(shape);
  for (int64_t a = r - 3; a >= 0; --a) {
    int64_t before = 1, after = 1;
    for (int64_t i = 2; i < a + 2; ++i) before *= y.size(i);
    for (int64_t i = a + 3; i < y.dim(); ++i) after *= y.size(i);
    Tensor z = stage(y.reshape({n, ch * before, y.size(a + 2), after}), pick(w, static_cast<int>(a), -1));
    shape = y.sizes();
    shape[a + 2] = z.size(2);
    y = z.reshape(shape);
  }
  return y;
}

// Indices output of a 1-d or 2-d MaxPool: flat positions in the whole input, row-major (storage_order 0)
// or column-major over the spatial plane (1).
Tensor flat_indices(const Tensor& plane_idx, const Window& w2, int64_t in_h, int64_t in_w, int64_t padded_w,
                    bool column_major) {
  Tensor h = sub(div(plane_idx, padded_w, std::string("floor")), w2.pad_begin[0]);
  Tensor col = sub(remainder(plane_idx, padded_w), w2.pad_begin[1]);
  Tensor idx = column_major ? add(mul(col, in_h), h) : add(mul(h, in_w), col);
  int64_t n = idx.size(0), ch = idx.size(1);
  Tensor base = mul(arange(n * ch, TensorOptions(kInt64).set_device(idx.device())), in_h * in_w).reshape({n, ch, 1, 1});
  return add(idx, base);
}

Out max_pool_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  PoolPlan p = plan_pool(c, x);
  const bool with_indices = c.num_outputs() >= 2 && !c.node().output(1).empty();
  if (p.empty) {
    Tensor y = empty(p.out, TensorOptions(x.dtype()).set_device(x.device()));
    if (!with_indices) return {y};
    return {y, empty(p.out, TensorOptions(kInt64).set_device(x.device()))};
  }
  if (!with_indices) return {separable(x, p.w, max_stage)};
  ADEPT_CHECK(x.dim() <= 4, NotImplementedForDevice, "MaxPool: Indices of a 3-d pool are not supported");
  bool one_d = x.dim() == 3;
  Tensor x4 = to_2d(x);
  Window w2 = one_d ? pick(p.w, -1, 0) : p.w;
  Tensor padded = pad_2d(x4, w2.pad_begin, w2.pad_end, -std::numeric_limits<double>::infinity());
  auto [y, idx] = max_pool2d_with_indices(padded, IntPair(w2.kernel[0], w2.kernel[1]), IntPair(w2.strides[0], w2.strides[1]),
                                          0, IntPair(w2.dilations[0], w2.dilations[1]));
  Tensor flat = flat_indices(idx, w2, x4.size(2), x4.size(3), padded.size(3), c.attr_int("storage_order", 0) != 0);
  return {one_d ? y.squeeze(2) : y, one_d ? flat.squeeze(2) : flat};
}

Out average_pool_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  PoolPlan p = plan_pool(c, x);
  if (p.empty) return {empty(p.out, TensorOptions(x.dtype()).set_device(x.device()))};
  size_t r = p.w.rank();
  Tensor sum = separable(x, p.w, sum_stage);
  // The positions that count, as ones over a (1, 1, *spatial) mask: the input, and with count_include_pad
  // the declared pads too (not the end padding ceil_mode adds); the mask's sums are the divisors.
  Shape in = {1, 1};
  in.insert(in.end(), x.sizes().begin() + 2, x.sizes().end());
  Tensor mask = ones(in, TensorOptions(x.dtype()).set_device(x.device()));
  Window mw = p.w;
  if (c.attr_int("count_include_pad", 0) != 0) {
    Shape torch_pads(2 * r, 0);  // last axis first
    for (size_t i = 0; i < r; ++i) {
      int64_t counted_end = std::min(p.declared_end[i], p.w.pad_end[i]);
      torch_pads[2 * (r - 1 - i)] = p.w.pad_begin[i];
      torch_pads[2 * (r - 1 - i) + 1] = counted_end;
      mw.pad_begin[i] = 0;
      mw.pad_end[i] = p.w.pad_end[i] - counted_end;
    }
    mask = pad(mask, torch_pads, "constant", 1.0);
  }
  return {div(sum, separable(mask, mw, sum_stage))};
}

Shape spatial_dims(const Tensor& x) {
  Shape dims;
  for (int64_t i = 2; i < x.dim(); ++i) dims.push_back(i);
  return dims;
}

Out global_average_pool_op(const OpContext& c) { return {mean(c.input(0), spatial_dims(c.input(0)), true)}; }
Out global_max_pool_op(const OpContext& c) { return {amax(c.input(0), spatial_dims(c.input(0)), true)}; }

// Load-time check: 1 to 3 spatial axes, and explicit pads smaller than the kernel on every axis, as
// onnxruntime requires ("Pad should be smaller than kernel"; torch refuses them too): a window of padding
// alone would average nothing (NaN) or take the max of nothing (-inf).
std::optional<std::string> pool_check(const OpContext& c) {
  std::vector<int64_t> kernel = c.attr_ints("kernel_shape"), pads = c.attr_ints("pads");
  size_t n = kernel.size();
  if (n > 3) return fmt::format("a {}-d pool (1 to 3 spatial axes are supported)", n);
  if (c.attr_string("auto_pad", "NOTSET") != "NOTSET" || pads.size() != 2 * n) return std::nullopt;  // run time
  for (size_t i = 0; i < 2 * n; ++i)
    ADEPT_CHECK(pads[i] < kernel[i % n], ValueError,
                "{}: pads [{}] must be smaller than kernel_shape [{}] on every axis (pad {} covers a whole window)",
                c.node().op_type(), fmt::join(pads, ", "), fmt::join(kernel, ", "), pads[i]);
  return std::nullopt;
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
  r.add("MaxPool", 1, {max_pool_op, pool_check});
  r.add("AveragePool", 1, {average_pool_op, pool_check});
  r.add("GlobalAveragePool", 1, {global_average_pool_op});
  r.add("GlobalMaxPool", 1, {global_max_pool_op});
}

}  // namespace adept::onnx::detail
