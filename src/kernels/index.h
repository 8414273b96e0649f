// Kernel families of indexing: gather/scatter along a dim, advanced-index reads and writes, nonzero.
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// out[p] = x[p with coordinate `dim` replaced by index[p]]; index is int64 with out's shape
/// (may be an expanded view); x has out's shape except along dim. Indices already bounds-checked.
ADEPT_DECLARE_KERNEL(gather_kernel, void(const Tensor& out, const Tensor& x, int64_t dim, const Tensor& index))
/// self[p with coordinate `dim` replaced by index[p]] (=, +=) src[p] for all p in index's shape.
ADEPT_DECLARE_KERNEL(scatter_kernel, void(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add))
/// Advanced-index read: out[p] = src[p + offset[p]] where `src` is viewed with out's shape (stride 0
/// over the broadcast index dims) and `offset` (int64, out's shape, usually a stride-0 view) holds
/// element offsets already bounds-checked by the op.
ADEPT_DECLARE_KERNEL(index_kernel, void(const Tensor& out, const Tensor& src, const Tensor& offset))
/// Advanced-index write: self[p + offset[p]] (=, +=) values[p]; self/values/offset share one shape
/// (self restrided like `src` above). Duplicate offsets: the last write wins, or all add up.
ADEPT_DECLARE_KERNEL(index_put_kernel, void(const Tensor& self, const Tensor& values, const Tensor& offset, bool accumulate))
/// Coordinates of the non-zero elements of `in`, row-major: out is (count, in.dim()) int64 with
/// count computed by the op.
ADEPT_DECLARE_KERNEL(nonzero_kernel, void(const Tensor& out, const Tensor& in))

}  // namespace adept
