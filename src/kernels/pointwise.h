// Kernel families of elementwise ops: copy/convert, fill, unary, binary, where, and SiLU's fused
// gradient.
#pragma once
#include "adept/tensor.h"
#include "kernels/op_ids.h"
#include "kernels/registry.h"

namespace adept {

/// dst[i] = cast(src[i]); dtypes may differ, same device.
ADEPT_DECLARE_KERNEL(copy_kernel, void(const Tensor& dst, const Tensor& src))
/// dst[i] = value.
ADEPT_DECLARE_KERNEL(fill_kernel, void(const Tensor& dst, const Scalar& value))
/// out = op(in). For IsNan/IsInf/IsFinite/LogicalNot out is bool; otherwise out.dtype == in.dtype.
ADEPT_DECLARE_KERNEL(unary_kernel, void(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p))
/// out = a op b; a and b share the compute dtype; out is bool for comparisons/logical ops.
ADEPT_DECLARE_KERNEL(binary_kernel, void(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b))
/// out = cond ? a : b (cond bool; a, b, out one dtype).
ADEPT_DECLARE_KERNEL(where_kernel, void(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b))
/// SiLU's gradient in one pass: grad_in = grad_out * s * (1 + x * (1 - s)), s = sigmoid(x); the three
/// tensors share shape and floating dtype. Optional (CPU, Vulkan): silu's backward uses the same formula
/// written with ops on devices without it, and when building a graph (create_graph).
ADEPT_DECLARE_KERNEL(silu_backward_kernel, void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& x))

}  // namespace adept
