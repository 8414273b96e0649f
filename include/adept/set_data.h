// Tensor.data assignment: replaces a tensor's data in place, keeping the handle and its autograd
// state (torch's `x.data = y`, Tensor::set_data).
#pragma once
#include "adept/tensor.h"

namespace adept {

/// Points `dst`'s TensorImpl at `src`'s data (storage, shape, strides, offset, dtype; so also its
/// device), so every holder of dst's handle sees the new data, which may differ in shape, dtype
/// and device. dst keeps requires_grad, grad and grad_fn and stops being a view; nothing is
/// recorded by autograd. ValueError when either tensor is undefined.
void set_data(const Tensor& dst, const Tensor& src);

}  // namespace adept
