// Pooling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, MaxUnpool2d.
#include "adept/nn/modules/pooling.h"

#include "adept/nn/functional/pooling.h"
#include "repr_util.h"

namespace adept::nn {

namespace F = functional;

std::string PoolSize::repr() const { return is_pair ? detail::py_tuple(value) : fmt::format("{}", value[0]); }

// ---------------------------------------------------------------------------------------------
// MaxPool2d / AvgPool2d

MaxPool2d::MaxPool2d(PoolSize kernel_size, std::optional<PoolSize> stride, PoolSize padding, PoolSize dilation,
                     bool return_indices, bool ceil_mode)
    : Module("MaxPool2d"), kernel_size(kernel_size), stride(stride.value_or(kernel_size)), padding(padding),
      dilation(dilation), return_indices(return_indices), ceil_mode(ceil_mode) {}

Tensor MaxPool2d::forward(const Tensor& input) {
  return F::max_pool2d(input, kernel_size.value, stride.value, padding.value, dilation.value, ceil_mode);
}

std::tuple<Tensor, Tensor> MaxPool2d::forward_with_indices(const Tensor& input) {
  return F::max_pool2d_with_indices(input, kernel_size.value, stride.value, padding.value, dilation.value, ceil_mode);
}

std::string MaxPool2d::extra_repr() const {
  return fmt::format("kernel_size={}, stride={}, padding={}, dilation={}, ceil_mode={}", kernel_size.repr(),
                     stride.repr(), padding.repr(), dilation.repr(), detail::py_bool(ceil_mode));
}

AvgPool2d::AvgPool2d(PoolSize kernel_size, std::optional<PoolSize> stride, PoolSize padding, bool ceil_mode,
                     bool count_include_pad, std::optional<int64_t> divisor_override)
    : Module("AvgPool2d"), kernel_size(kernel_size), stride(stride.value_or(kernel_size)), padding(padding),
      ceil_mode(ceil_mode), count_include_pad(count_include_pad), divisor_override(divisor_override) {}

Tensor AvgPool2d::forward(const Tensor& input) {
  return F::avg_pool2d(input, kernel_size.value, stride.value, padding.value, ceil_mode, count_include_pad,
                       divisor_override);
}

std::string AvgPool2d::extra_repr() const {
  return fmt::format("kernel_size={}, stride={}, padding={}", kernel_size.repr(), stride.repr(), padding.repr());
}

// ---------------------------------------------------------------------------------------------
// AdaptiveAvgPool2d

AdaptiveAvgPool2d::AdaptiveAvgPool2d(int64_t output_size)
    : Module("AdaptiveAvgPool2d"), output_size{output_size, output_size}, is_pair(false) {}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(std::optional<int64_t> h, std::optional<int64_t> w)
    : Module("AdaptiveAvgPool2d"), output_size{h, w}, is_pair(true) {}

Tensor AdaptiveAvgPool2d::forward(const Tensor& input) {
  ADEPT_CHECK(input.dim() >= 2, ShapeError, "AdaptiveAvgPool2d: expected a 3-d or 4-d input, got {}-d", input.dim());
  IntPair out(output_size[0].value_or(input.size(-2)), output_size[1].value_or(input.size(-1)));
  return F::adaptive_avg_pool2d(input, out);
}

std::string AdaptiveAvgPool2d::extra_repr() const {
  auto one = [](std::optional<int64_t> v) { return v ? std::to_string(*v) : std::string("None"); };
  if (!is_pair) return "output_size=" + one(output_size[0]);
  return "output_size=(" + one(output_size[0]) + ", " + one(output_size[1]) + ")";
}

// ---------------------------------------------------------------------------------------------
// MaxUnpool2d

MaxUnpool2d::MaxUnpool2d(IntPair kernel_size, std::optional<IntPair> stride, IntPair padding)
    : Module("MaxUnpool2d"), kernel_size(kernel_size), stride(stride.value_or(kernel_size)), padding(padding) {}

Tensor MaxUnpool2d::forward(const Tensor& input, const Tensor& indices, std::optional<Shape> output_size) {
  return F::max_unpool2d(input, indices, kernel_size, stride, padding, output_size);
}

std::string MaxUnpool2d::extra_repr() const {
  return fmt::format("kernel_size={}, stride={}, padding={}", detail::py_tuple(kernel_size), detail::py_tuple(stride),
                     detail::py_tuple(padding));
}

}  // namespace adept::nn
