// Kernel families of indexing: gather/scatter along a dim, advanced-index reads and writes, nonzero.
//
// Determinism: every backend's writes give the CPU's result. With duplicate targets, "=" keeps the
// value of the last position (row-major over the index's / values' shape) and "+=" adds the values
// onto the destination in increasing position order, rounding to its dtype after each addition (bool:
// or). The Vulkan kernels get there without atomics: one invocation per destination element walks the
// positions aimed at it in order (so sums are bit-identical to the CPU's). Cost there: O(n^2) in the
// number n of index positions that may collide (index.size(dim) for scatter; the broadcast index
// shape for index_put), run in segments that respect the driver's loop limit.
// Host synchronisation: none of these kernels waits for the device; the ops that need a count on the
// host wait before calling them (nonzero: the number of non-zeros; masks in index expressions go
// through nonzero; the ops' bounds checks of index values read min/max).
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// out[p] = x[p with coordinate `dim` replaced by index[p]]; index is int64 with out's shape
/// (may be an expanded view); x has out's shape except along dim. Indices already bounds-checked.
ADEPT_DECLARE_KERNEL(gather_kernel, void(const Tensor& out, const Tensor& x, int64_t dim, const Tensor& index))
/// self[p with coordinate `dim` replaced by index[p]] (=, +=) src[p] for all p in index's shape; duplicates
/// as described above (the last p along dim wins, or the values add up in order of p).
ADEPT_DECLARE_KERNEL(scatter_kernel, void(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add))
/// Advanced-index read: out[p] = src[p + offset[p]] where `src` is viewed with out's shape (stride 0
/// over the broadcast index dims) and `offset` (int64, out's shape, usually a stride-0 view) holds
/// element offsets already bounds-checked by the op.
ADEPT_DECLARE_KERNEL(index_kernel, void(const Tensor& out, const Tensor& src, const Tensor& offset))
/// Advanced-index write: self[p + offset[p]] (=, +=) values[p]; self/values/offset share one shape
/// (self restrided like `src` above: stride 0 over the index dims). Duplicate offsets: the last write wins,
/// or all add up. Targets may repeat only across positions that differ in the dims where self's stride is
/// 0 (as the op's layout guarantees); the Vulkan kernel relies on it.
ADEPT_DECLARE_KERNEL(index_put_kernel, void(const Tensor& self, const Tensor& values, const Tensor& offset, bool accumulate))
/// Coordinates of the non-zero elements of `in`, row-major: out is (count, in.dim()) int64 with
/// count computed by the op (on the host: nonzero() synchronises to size `out`).
ADEPT_DECLARE_KERNEL(nonzero_kernel, void(const Tensor& out, const Tensor& in))

}  // namespace adept
