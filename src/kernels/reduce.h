// Kernel families of reductions, scans and sorting.
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "kernels/op_ids.h"
#include "kernels/registry.h"

namespace adept {

/// Reduces `in` over the dims where `out` has size 1 and `in` does not (out has keepdim shape,
/// same rank). Sum/Prod/Max/Min: out dtype = in dtype (ints accumulate in int64, floats in
/// double); ArgMax/ArgMin: out int64 (first occurrence; NaN wins); All/Any: out bool.
/// `reduce_mask` has bit d set for each reduced dim (handles size-1 reduced dims).
ADEPT_DECLARE_KERNEL(reduce_kernel, void(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t reduce_mask))
/// Inclusive scan along `dim`: out = cumsum (is_prod false) or cumprod of in; same shape/dtype.
ADEPT_DECLARE_KERNEL(scan_kernel, void(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod))
/// Sorts along the last dim: values/indices (int64) have in's shape. NaN is the largest value;
/// equal elements keep their order (stable). topk > 0 orders only the first `topk` positions of
/// each row (values/indices then have size topk along the last dim).
ADEPT_DECLARE_KERNEL(sort_kernel, void(const Tensor& values, const Tensor& indices, const Tensor& in, bool descending, int64_t topk))

/// Fused softmax along `dim` (log_softmax when `log`): out = exp(x - max) / sum(exp(x - max)) (or
/// x - max - log(sum(exp(x - max)))) with max and sum over dim, accumulated in float (double for
/// float64). in/out contiguous, same shape and floating dtype, numel > 0. Optional (Vulkan): the op
/// composes it from reductions and pointwise ops on devices without it.
ADEPT_DECLARE_KERNEL(softmax_kernel, void(const Tensor& out, const Tensor& in, int64_t dim, bool log))
/// The gradient of softmax_kernel for output y and upstream g (all contiguous, one shape and dtype):
/// softmax grad_in = y * (g - sum(g * y)); log_softmax grad_in = g - exp(y) * sum(g), sums over dim.
ADEPT_DECLARE_KERNEL(softmax_backward_kernel,
                     void(const Tensor& grad_in, const Tensor& grad_out, const Tensor& out, int64_t dim, bool log))

}  // namespace adept
