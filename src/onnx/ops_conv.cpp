// ONNX Conv and ConvTranspose (https://onnx.ai/onnx/operators/onnx__Conv.html, onnx__ConvTranspose.html)
// on Adept's conv2d / conv_transpose2d: 1-d inputs run as 2-d with a unit axis, asymmetric pads become an
// explicit pad (Conv) or a crop of the unpadded result (ConvTranspose). 3-d transposed convolutions sum 2-d
// ones over the kernel's depth; 3-d convolutions are refused (at load when the kernel's rank is known).
#include "adept/ops/conv.h"
#include "adept/ops/creation.h"
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
  ADEPT_CHECK(output_shape.size() >= n, ValueError,
              "ConvTranspose: output_shape must have an entry per spatial axis ({}), got {}", n, output_shape.size());
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

// The unpadded transposed convolution (no pads, no output_padding) of a (N, C, D, H, W) input: output depth
// d sums the 2-d transposed convolutions of input depth i by kernel depth k over i * stride + k * dilation = d.
Tensor conv_transpose3d_unpadded(const Tensor& x, const Tensor& weight, const Window& w, int64_t groups) {
  int64_t depth = x.size(2), kernel_depth = weight.size(2);
  std::vector<Tensor> planes(static_cast<size_t>(w.strides[0] * (depth - 1) + w.span(0)));
  IntPair stride(w.strides[1], w.strides[2]), dilation(w.dilations[1], w.dilations[2]);
  for (int64_t i = 0; i < depth; ++i)
    for (int64_t k = 0; k < kernel_depth; ++k) {
      Tensor t = conv_transpose2d(x.select(2, i), weight.select(2, k), Tensor(), stride, 0, 0, groups, dilation);
      Tensor& plane = planes[static_cast<size_t>(i * w.strides[0] + k * w.dilations[0])];
      plane = plane.defined() ? add(plane, t) : t;
    }
  for (Tensor& plane : planes)  // depths no tap reaches (a stride beyond the dilated kernel)
    if (!plane.defined()) plane = zeros_like(planes[0]);
  return stack(planes, 2);
}

Out conv_transpose_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  ADEPT_CHECK(x.dim() >= 3 && x.dim() <= 5, NotImplementedForDevice,
              "ConvTranspose: inputs (N, C, D1 [, D2 [, D3]]) are supported, got rank {}", x.dim());
  Shape in(x.sizes().begin() + 2, x.sizes().end());
  const Tensor& weight = c.input(1);
  size_t n = in.size();
  Window w = read_window(c, in, kernel_of(c, weight));
  if (c.attr_string("auto_pad", "NOTSET") != "NOTSET") w.pad_begin = w.pad_end = std::vector<int64_t>(n, 0);
  std::vector<int64_t> output_padding = c.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  ADEPT_CHECK(output_padding.size() == n, ValueError,
              "ConvTranspose: output_padding must have an entry per spatial axis ({}), got {}", n, output_padding.size());
  transpose_pads(c, in, w, output_padding);
  Tensor bias = c.has_input(2) ? c.input(2) : Tensor();
  int64_t groups = c.attr_int("group", 1);
  Tensor y;
  if (n == 3) {
    y = conv_transpose3d_unpadded(x, weight, w, groups);
  } else {
    Window w2 = n == 1 ? w.as_2d() : w;
    std::vector<int64_t> op2 = output_padding;
    if (n == 1) op2.insert(op2.begin(), 0);
    IntPair stride(w2.strides[0], w2.strides[1]), dilation(w2.dilations[0], w2.dilations[1]);
    bool direct = w2.symmetric();
    for (size_t i = 0; i < 2; ++i)
      direct = direct && w2.pad_begin[i] >= 0 && op2[i] < std::max(w2.strides[i], w2.dilations[i]);
    if (direct) {
      y = conv_transpose2d(to_2d(x), to_2d(weight), bias, stride, IntPair(w2.pad_begin[0], w2.pad_begin[1]),
                           IntPair(op2[0], op2[1]), groups, dilation);
      return {n == 1 ? y.squeeze(2) : y};
    }
    y = conv_transpose2d(to_2d(x), to_2d(weight), Tensor(), stride, 0, 0, groups, dilation);
    if (n == 1) y = y.squeeze(2);
  }
  // The unpadded result's window [pad_begin, pad_begin + out), out = full + output_padding - pads, with zeros
  // where it reaches beyond the result (output_padding, negative pads).
  for (size_t i = 0; i < n; ++i) {
    int64_t axis = static_cast<int64_t>(i) + 2, full = y.size(axis);
    int64_t out = full + output_padding[i] - w.pad_begin[i] - w.pad_end[i];
    int64_t begin = std::max<int64_t>(0, w.pad_begin[i]), end = std::min(full, w.pad_begin[i] + out);
    y = y.narrow(axis, begin, std::max<int64_t>(0, end - begin));
    Shape p(2 * n, 0);  // torch's layout: last axis first
    p[2 * (n - 1 - i)] = std::max<int64_t>(0, -w.pad_begin[i]);
    p[2 * (n - 1 - i) + 1] = std::max<int64_t>(0, w.pad_begin[i] + out - full);
    if (p[2 * (n - 1 - i)] || p[2 * (n - 1 - i) + 1]) y = pad(y, p);
  }
  if (bias.defined()) {
    Shape s(2 + n, 1);
    s[1] = -1;
    y = add(y, bias.reshape(s));
  }
  return {y};
}

// Load-time check of Conv and ConvInteger: the spatial rank, where the kernel_shape attribute or a constant
// weight tells it before the input arrives (3-d convolutions are refused).
std::optional<std::string> conv_check(const OpContext& c) {
  int64_t spatial = c.has_attr("kernel_shape") ? static_cast<int64_t>(c.attr_ints("kernel_shape").size())
                    : c.has_input(1)           ? c.input(1).dim() - 2
                                               : 0;
  if (spatial > 2) return fmt::format("a {}-d convolution (1-d and 2-d are supported)", spatial);
  return std::nullopt;
}

}  // namespace

void register_conv_ops(OpRegistry& r) {
  r.add("Conv", 1, {conv_op, conv_check});
  r.add("ConvTranspose", 1, {conv_transpose_op});
  r.add("ConvInteger", 10, {conv_integer_op, conv_check, {{2, InputRole::Config}, {3, InputRole::Config}}});
}

}  // namespace adept::onnx::detail
