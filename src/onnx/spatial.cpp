// Window geometry of the ONNX convolution and pooling handlers.
#include "onnx/spatial.h"

#include "adept/ops/shape.h"

namespace adept::onnx::detail {

Window Window::as_2d() const {
  Window w = *this;
  w.kernel.insert(w.kernel.begin(), 1);
  w.strides.insert(w.strides.begin(), 1);
  w.dilations.insert(w.dilations.begin(), 1);
  w.pad_begin.insert(w.pad_begin.begin(), 0);
  w.pad_end.insert(w.pad_end.begin(), 0);
  return w;
}

Window read_window(const OpContext& c, const Shape& in, const std::vector<int64_t>& kernel) {
  size_t n = kernel.size();
  Window w;
  w.kernel = kernel;
  w.strides = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  w.dilations = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  ADEPT_CHECK(w.strides.size() == n && w.dilations.size() == n && pads.size() == 2 * n && in.size() == n, ValueError,
              "{}: strides, dilations and pads must have {} / {} / {} entries for a {}-d kernel on {} spatial axes, got "
              "{} / {} / {}", c.node().op_type(), n, n, 2 * n, n, in.size(), w.strides.size(), w.dilations.size(),
              pads.size());
  for (size_t i = 0; i < n; ++i)
    ADEPT_CHECK(w.kernel[i] >= 1 && w.strides[i] >= 1 && w.dilations[i] >= 1, ValueError,
                "{}: kernel sizes, strides and dilations must be positive, got kernel {}, stride {} and dilation {} "
                "on spatial axis {}", c.node().op_type(), w.kernel[i], w.strides[i], w.dilations[i], i);
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(n));
  w.pad_end.assign(pads.begin() + static_cast<int64_t>(n), pads.end());
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.pad_begin.assign(n, 0);
    w.pad_end.assign(n, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t out = (in[i] + w.strides[i] - 1) / w.strides[i];
      int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + w.span(i) - in[i]);
      w.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
    }
  } else {
    ADEPT_CHECK(auto_pad == "NOTSET", ValueError,
                "{}: auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, got '{}'", c.node().op_type(), auto_pad);
  }
  return w;
}

Tensor to_2d(const Tensor& x) { return x.dim() == 3 ? x.unsqueeze(2) : x; }

void check_spatial_rank(const OpContext& c, const Tensor& x) {
  ADEPT_CHECK(x.dim() == 3 || x.dim() == 4, NotImplementedForDevice,
              "{}: only 1-d and 2-d inputs ((N, C, L) or (N, C, H, W)) are supported, got rank {}", c.node().op_type(),
              x.dim());
}

Tensor pad_2d(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& end, double value) {
  Shape p = {begin[1], end[1], begin[0], end[0]};
  for (int64_t v : p)
    if (v != 0) return pad(x, p, "constant", value);
  return x;
}

}  // namespace adept::onnx::detail
