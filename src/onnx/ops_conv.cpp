// ONNX Conv and ConvTranspose (https://onnx.ai/onnx/operators/onnx__Conv.html, onnx__ConvTranspose.html)
// on Adept's conv2d / conv_transpose2d: 1-d inputs run as 2-d with a unit axis, asymmetric pads become an
// explicit pad (Conv) or a crop of the unpadded result (ConvTranspose). 3-d convolutions are refused.
#include "adept/ops/conv.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/shape.h"
#include "onnx/spatial.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

std::vector<int64_t> kernel_of(const OpContext& c, const Tensor& weight) {
  ADEPT_CHECK(weight.dim() >= 3, ShapeError, "{}: the weight must have rank 3 or more, got {}", c.node().op_type(),
              weight.dim());
  Shape k(weight.sizes().begin() + 2, weight.sizes().end());
  return c.attr_ints("kernel_shape", k);
}

// Conv of x by w (+ bias) with the node's window, groups and padding.
Tensor convolve(const OpContext& c, const Tensor& x, const Tensor& w_in, const Tensor& bias) {
  check_spatial_rank(c, x);
  Shape in(x.sizes().begin() + 2, x.sizes().end());
  Window w = read_window(c, in, kernel_of(c, w_in));
  bool one_d = x.dim() == 3;
  if (one_d) w = w.as_2d();
  Tensor x2 = to_2d(x), weight = to_2d(w_in);
  int64_t groups = c.attr_int("group", 1);
  IntPair stride(w.strides[0], w.strides[1]), dilation(w.dilations[0], w.dilations[1]);
  Tensor y;
  if (w.symmetric()) {
    y = conv2d(x2, weight, bias, stride, IntPair(w.pad_begin[0], w.pad_begin[1]), dilation, groups);
  } else {
    y = conv2d(pad_2d(x2, w.pad_begin, w.pad_end, 0.0), weight, bias, stride, 0, dilation, groups);
  }
  return one_d ? y.squeeze(2) : y;
}

Out conv_op(const OpContext& c) { return {convolve(c, c.input(0), c.input(1), c.has_input(2) ? c.input(2) : Tensor())}; }

// x - zero_point in float64 (exact for 8-bit data), the zero point per tensor or per output channel.
Tensor centered(const OpContext& c, size_t input, size_t zero_point, int64_t channel_axis) {
  Tensor v = c.input(input).to(kFloat64);
  if (!c.has_input(zero_point)) return v;
  Tensor zp = c.input(zero_point).to(kFloat64);
  if (zp.numel() > 1) {
    ADEPT_CHECK(v.dim() > channel_axis, ShapeError, "{}: a per-channel zero point needs an input of rank > {}",
                c.node().op_type(), channel_axis);
    Shape s(v.dim(), 1);
    s[channel_axis] = -1;
    zp = zp.reshape(s);
  }
  return sub(v, zp);
}

// ConvInteger: (x - x_zero_point) conv (w - w_zero_point) in int32, computed exactly in float64.
Out conv_integer_op(const OpContext& c) {
  return {convolve(c, centered(c, 0, 2, 1), centered(c, 1, 3, 0), Tensor()).to(kInt32)};
}

// Output padding and pads of ConvTranspose: output_shape, when given, sets the total padding, split as the
// spec says (SAME_UPPER: the odd element at the end; otherwise at the beginning); SAME_* without it aims
// at in * stride.
void transpose_pads(const OpContext& c, const Shape& in, Window& w, std::vector<int64_t>& output_padding) {
  size_t n = in.size();
  std::vector<int64_t> output_shape = c.attr_ints("output_shape");
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (output_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
    for (size_t i = 0; i < n; ++i) output_shape.push_back(in[i] * w.strides[i]);
  if (output_shape.empty()) return;
  ADEPT_CHECK(output_shape.size() >= n, ValueError, "ConvTranspose: output_shape has {} entries for {} spatial axes",
              output_shape.size(), n);
  output_shape.erase(output_shape.begin(), output_shape.end() - static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    // A negative total (output_shape beyond the natural size) extends the end, as ONNX's reference
    // (whose // floors).
    int64_t total = w.strides[i] * (in[i] - 1) + output_padding[i] + w.span(i) - output_shape[i];
    int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
    w.pad_begin[i] = auto_pad == "SAME_UPPER" ? half : total - half;
    w.pad_end[i] = total - w.pad_begin[i];
  }
}

Out conv_transpose_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  check_spatial_rank(c, x);
  Shape in(x.sizes().begin() + 2, x.sizes().end());
  const Tensor& weight = c.input(1);
  size_t n = in.size();
  Window w = read_window(c, in, kernel_of(c, weight));
  if (c.attr_string("auto_pad", "NOTSET") != "NOTSET") w.pad_begin = w.pad_end = std::vector<int64_t>(n, 0);
  std::vector<int64_t> output_padding = c.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  ADEPT_CHECK(output_padding.size() == n, ValueError, "ConvTranspose: output_padding has {} entries for {} axes",
              output_padding.size(), n);
  transpose_pads(c, in, w, output_padding);
  bool one_d = n == 1;
  if (one_d) {
    w = w.as_2d();
    output_padding.insert(output_padding.begin(), 0);
  }
  Tensor x2 = to_2d(x), weight2 = to_2d(weight);
  Tensor bias = c.has_input(2) ? c.input(2) : Tensor();
  int64_t groups = c.attr_int("group", 1);
  IntPair stride(w.strides[0], w.strides[1]), dilation(w.dilations[0], w.dilations[1]);
  bool direct = w.symmetric();
  for (size_t i = 0; i < 2; ++i)
    direct = direct && w.pad_begin[i] >= 0 && output_padding[i] < std::max(w.strides[i], w.dilations[i]);
  Tensor y;
  if (direct) {
    y = conv_transpose2d(x2, weight2, bias, stride, IntPair(w.pad_begin[0], w.pad_begin[1]),
                         IntPair(output_padding[0], output_padding[1]), groups, dilation);
  } else {
    // The unpadded result's window [pad_begin, pad_begin + out), out = full + output_padding - pads, with
    // zeros where it reaches beyond the result (output_padding, negative pads).
    y = conv_transpose2d(x2, weight2, Tensor(), stride, 0, 0, groups, dilation);
    for (size_t i = 0; i < 2; ++i) {
      int64_t axis = static_cast<int64_t>(i) + 2, full = y.size(axis);
      int64_t out = full + output_padding[i] - w.pad_begin[i] - w.pad_end[i];
      int64_t begin = std::max<int64_t>(0, w.pad_begin[i]), end = std::min(full, w.pad_begin[i] + out);
      y = y.narrow(axis, begin, std::max<int64_t>(0, end - begin));
      Shape p(4, 0);  // torch's layout: last axis first
      p[(1 - i) * 2] = std::max<int64_t>(0, -w.pad_begin[i]);
      p[(1 - i) * 2 + 1] = std::max<int64_t>(0, w.pad_begin[i] + out - full);
      if (p[(1 - i) * 2] || p[(1 - i) * 2 + 1]) y = pad(y, p);
    }
    if (bias.defined()) y = add(y, bias.reshape({1, -1, 1, 1}));
  }
  return {one_d ? y.squeeze(2) : y};
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  r.add("Conv", 1, {conv_op});
  r.add("ConvTranspose", 1, {conv_transpose_op});
  r.add("ConvInteger", 10, {conv_integer_op, nullptr, {{2, InputRole::Config}, {3, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
