// Internal helpers shared by op implementations: argument checks, broadcasting reductions for
// gradients, in-place bookkeeping.
#pragma once
#include <string>
#include <vector>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "autograd/node.h"
#include "kernels/kernels.h"

namespace adept {

/// The device of an op's operands: DeviceError naming `op` unless all defined tensors are on one
/// device, where 0-d CPU tensors (scalars) may join tensors on another device.
Device check_same_device(const char* op, std::initializer_list<const Tensor*> ts);
/// Shape formatted like PyTorch: [2, 3].
std::string shape_str(const Shape& s);
/// Sums `g` over broadcast dims so it has `shape` (gradient of an expand).
Tensor sum_to(const Tensor& g, const Shape& shape);
/// Checks that `self` may be written in place by `op`: not an expanded (overlapping) tensor,
/// not a leaf that requires grad while grad mode is on.
void check_inplace(const Tensor& self, const char* op);
/// Writes `result` (same shape) into `self` in place: copies data, bumps the version and, when
/// `result` carries autograd history, makes `self` the output of that history.
Tensor& commit_inplace(Tensor& self, const Tensor& result, const char* op);
/// True when the tensor has a stride-0 dim of size > 1 (so an in-place write would overlap).
bool has_internal_overlap(const Tensor& t);
/// An op result that was reshaped through view() of an internal temporary (e.g. keepdim=false
/// reductions, matmul's batch reshape) owns its storage alone: mark it as not a view, so in-place
/// ops on it are allowed like on any fresh result. Returns `t`.
Tensor fresh_result(Tensor t);
/// True when `t`'s elements exactly tile a block of memory (a permutation of a contiguous layout,
/// no gaps, no overlap); size-1 dims are ignored.
bool is_non_overlapping_and_dense(const Tensor& t);
/// Uninitialised tensor shaped like `x` that keeps x's strides when x is non-overlapping and
/// dense (PyTorch's preserve_format), else contiguous.
Tensor empty_like_layout(const Tensor& x, Dtype dtype, Device device);
/// 0-d tensor of `dtype` holding `s`.
Tensor wrap_scalar(const Scalar& s, Dtype dtype, Device device);
/// Bitmask of the reduced dims (after wrapping); all dims when `dims` is empty.
uint64_t dims_mask(const Shape& dims, int64_t ndim, const char* op);
/// Shape of a reduction's result with keepdim=true (reduced dims become 1).
Shape keepdim_shape(const Shape& in, uint64_t mask);
/// Removes the reduced dims from a keepdim-shaped result.
Shape squeeze_shape(const Shape& in, uint64_t mask);

}  // namespace adept
