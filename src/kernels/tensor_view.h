// Tensors as kernels see them: aliases of an operand's storage with another geometry, and
// temporaries from the device's allocator. Neither goes through an op or records autograd history,
// so backends can use them.
#pragma once
#include "adept/tensor.h"

namespace adept {

/// A private alias of `t`'s storage with another geometry (any strides, negative too) and no
/// autograd history: how ops and kernels see an operand through a different layout.
Tensor restrided(const Tensor& t, Shape sizes, Shape strides, int64_t storage_offset);
/// Views by geometry alone (no checks beyond the caller's, no autograd): t.narrow(dim, start, len),
/// t.select(dim, index) and t.unsqueeze(dim) for a kernel's own slicing of its operands.
Tensor narrow_view(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select_view(const Tensor& t, int64_t dim, int64_t index);
Tensor unsqueeze_view(const Tensor& t, int64_t dim);
/// An uninitialised contiguous tensor of `sizes` and `dtype` on `device`, from that device's
/// allocator (a kernel's temporary). Throws OutOfMemoryError as Storage::allocate.
Tensor kernel_buffer(const Shape& sizes, Dtype dtype, Device device);
/// `t` itself when contiguous, else a contiguous copy made with the device's copy kernel.
Tensor contiguous_buffer(const Tensor& t);

}  // namespace adept
