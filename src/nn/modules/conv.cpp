// Conv2d and ConvTranspose2d layers.
#include "adept/nn/modules/conv.h"

#include "adept/autograd.h"
#include "adept/nn/functional/conv.h"
#include "adept/ops/creation.h"
#include "adept/ops/shape.h"
#include "default_init.h"
#include "repr_util.h"

namespace adept::nn {

namespace F = functional;

namespace {
void check_channels(const char* op, int64_t in, int64_t out, int64_t groups) {
  ADEPT_CHECK(groups > 0, ValueError, "{}: groups must be a positive integer, got {}", op, groups);
  ADEPT_CHECK(in >= 0 && out >= 0, ValueError, "{}: channel counts must be >= 0, got {} and {}", op, in, out);
  ADEPT_CHECK(in % groups == 0, ValueError, "{}: in_channels must be divisible by groups ({} vs {})", op, in, groups);
  ADEPT_CHECK(out % groups == 0, ValueError, "{}: out_channels must be divisible by groups ({} vs {})", op, out, groups);
}

std::string conv_repr(int64_t in, int64_t out, IntPair k, IntPair s, const std::string& padding, IntPair dilation,
                      const IntPair* output_padding, int64_t groups, bool bias, const std::string& padding_mode) {
  std::string r = fmt::format("{}, {}, kernel_size={}, stride={}", in, out, detail::py_tuple(k), detail::py_tuple(s));
  if (!padding.empty()) r += ", padding=" + padding;
  if (dilation != IntPair(1)) r += ", dilation=" + detail::py_tuple(dilation);
  if (output_padding && *output_padding != IntPair(0)) r += ", output_padding=" + detail::py_tuple(*output_padding);
  if (groups != 1) r += fmt::format(", groups={}", groups);
  if (!bias) r += ", bias=False";
  if (padding_mode != "zeros") r += ", padding_mode=" + padding_mode;
  return r;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Conv2d

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size, IntPair stride, Conv2dPadding padding,
               IntPair dilation, int64_t groups, bool bias, std::string padding_mode)
    : Module("Conv2d"), in_channels(in_channels), out_channels(out_channels), kernel_size(kernel_size),
      stride(stride), padding(padding.amount), dilation(dilation), padding_string(padding.mode), groups(groups),
      padding_mode(std::move(padding_mode)) {
  if (padding_string) {
    ADEPT_CHECK(*padding_string == "same" || *padding_string == "valid", ValueError,
                "Invalid padding string '{}', should be one of {{'valid', 'same'}}", *padding_string);
    ADEPT_CHECK(*padding_string != "same" || stride == IntPair(1), ValueError,
                "padding='same' is not supported for strided convolutions");
  }
  check_channels("Conv2d", in_channels, out_channels, groups);
  ADEPT_CHECK(this->padding_mode == "zeros" || this->padding_mode == "reflect" || this->padding_mode == "replicate" ||
                  this->padding_mode == "circular",
              ValueError, "padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', but got "
              "padding_mode='{}'", this->padding_mode);
  register_parameter("weight", empty({out_channels, in_channels / groups, kernel_size[0], kernel_size[1]}));
  register_parameter("bias", bias ? empty({out_channels}) : Tensor());
  reset_parameters();
}

void Conv2d::reset_parameters() {
  NoGradGuard ng;
  detail::reset_weight_and_bias(parameter("weight"), parameter("bias"));
}

Tensor Conv2d::forward(const Tensor& input) {
  const Tensor& w = parameter("weight");
  const Tensor& b = parameter("bias");
  if (padding_mode == "zeros") {
    if (padding_string) return F::conv2d(input, w, b, stride, *padding_string, dilation, groups);
    return F::conv2d(input, w, b, stride, padding, dilation, groups);
  }
  // Explicit padding: (left, right, top, bottom); "same" puts the odd element right/bottom.
  Shape pads(4, 0);
  for (int axis = 0; axis < 2; ++axis) {
    int64_t before = padding[axis], after = padding[axis];
    if (padding_string == "same") {
      int64_t total = dilation[axis] * (kernel_size[axis] - 1);
      before = total / 2;
      after = total - before;
    }
    pads[2 * (1 - axis)] = before;
    pads[2 * (1 - axis) + 1] = after;
  }
  return F::conv2d(adept::pad(input, pads, padding_mode), w, b, stride, IntPair(0), dilation, groups);
}

std::string Conv2d::extra_repr() const {
  std::string pad = padding_string ? *padding_string : (padding != IntPair(0) ? detail::py_tuple(padding) : "");
  return conv_repr(in_channels, out_channels, kernel_size, stride, pad, dilation, nullptr, groups,
                   parameter("bias").defined(), padding_mode);
}

// ---------------------------------------------------------------------------------------------
// ConvTranspose2d

ConvTranspose2d::ConvTranspose2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size, IntPair stride,
                                 IntPair padding, IntPair output_padding, int64_t groups, bool bias, IntPair dilation,
                                 std::string padding_mode)
    : Module("ConvTranspose2d"), in_channels(in_channels), out_channels(out_channels), kernel_size(kernel_size),
      stride(stride), padding(padding), output_padding(output_padding), groups(groups), dilation(dilation),
      padding_mode(std::move(padding_mode)) {
  check_channels("ConvTranspose2d", in_channels, out_channels, groups);
  ADEPT_CHECK(this->padding_mode == "zeros", ValueError,
              "Only \"zeros\" padding mode is supported for ConvTranspose2d, got '{}'", this->padding_mode);
  register_parameter("weight", empty({in_channels, out_channels / groups, kernel_size[0], kernel_size[1]}));
  register_parameter("bias", bias ? empty({out_channels}) : Tensor());
  reset_parameters();
}

void ConvTranspose2d::reset_parameters() {
  NoGradGuard ng;
  detail::reset_weight_and_bias(parameter("weight"), parameter("bias"));
}

Tensor ConvTranspose2d::forward(const Tensor& input) {
  return F::conv_transpose2d(input, parameter("weight"), parameter("bias"), stride, padding, output_padding, groups,
                             dilation);
}

Tensor ConvTranspose2d::forward(const Tensor& input, const Shape& output_size) {
  ADEPT_CHECK(output_size.size() >= 2, ValueError,
              "ConvTranspose2d: output_size must have at least 2 elements (got {})", output_size.size());
  ADEPT_CHECK(input.dim() >= 2, ShapeError, "ConvTranspose2d: expected a 3-d or 4-d input, got {}-d", input.dim());
  IntPair op(0);
  for (int axis = 0; axis < 2; ++axis) {
    int64_t in = input.size(input.dim() - 2 + axis);
    int64_t min_size = (in - 1) * stride[axis] - 2 * padding[axis] + dilation[axis] * (kernel_size[axis] - 1) + 1;
    int64_t want = output_size[output_size.size() - 2 + axis];
    ADEPT_CHECK(want >= min_size && want < min_size + stride[axis], ValueError,
                "ConvTranspose2d: requested an output size of {}, but valid sizes range from {} to {} (for an "
                "input of {})", want, min_size, min_size + stride[axis] - 1, in);
    op[axis] = want - min_size;
  }
  return F::conv_transpose2d(input, parameter("weight"), parameter("bias"), stride, padding, op, groups, dilation);
}

std::string ConvTranspose2d::extra_repr() const {
  return conv_repr(in_channels, out_channels, kernel_size, stride,
                   padding != IntPair(0) ? detail::py_tuple(padding) : "", dilation, &output_padding, groups,
                   parameter("bias").defined(), padding_mode);
}

}  // namespace adept::nn
