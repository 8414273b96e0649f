// Window geometry shared by the ONNX convolution and pooling handlers: kernel, strides, dilations and
// the begin / end padding of each spatial axis, with auto_pad resolved (ONNX Conv / MaxPool specs), and
// the reshaping of 1-d ops onto Adept's 2-d kernels.
#pragma once
#include <vector>

#include "adept/tensor.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end;
  size_t rank() const { return kernel.size(); }
  int64_t span(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  bool symmetric() const { return pad_begin == pad_end; }
  /// The window made 2-d by a leading axis of size 1 (kernel 1, stride 1, no padding).
  Window as_2d() const;
};

/// The window of a node over input spatial sizes `in` with kernel sizes `kernel`: strides and dilations
/// default to 1, pads to 0; auto_pad SAME_UPPER / SAME_LOWER pads so that out = ceil(in / stride) (the odd
/// element at the end / beginning), VALID pads nothing.
Window read_window(const OpContext& c, const Shape& in, const std::vector<int64_t>& kernel);

/// A tensor (N, C, *spatial) with one spatial axis as (N, C, 1, L); other ranks unchanged.
Tensor to_2d(const Tensor& x);
/// NotImplementedForDevice naming the op unless the input has 1 or 2 spatial axes.
void check_spatial_rank(const OpContext& c, const Tensor& x);

/// x padded with `value` by begin[i] / end[i] elements on axis i of its last two axes (no copy when all are 0).
Tensor pad_2d(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& end, double value);

}  // namespace adept::onnx::detail
