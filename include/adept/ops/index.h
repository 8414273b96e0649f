// Indexing ops: gather/scatter family, index_select/index_add/index_put, masks, nonzero,
// unique, sort/topk/argsort, one_hot. Index tensors are int64 (int32 accepted); an index out of
// range raises IndexError naming the op, the index and the size.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "adept/tensor.h"

namespace adept {

/// out[i][j] = x[index[i][j]][j] (dim 0) etc.; out has index's shape.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
/// Copy of x with x[index[i][j]][j] = src[i][j] (dim 0); reduce "" (assign), "add" or "multiply".
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
/// Copy of x with source slices added at `index` along dim (times alpha).
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor& index_add_(Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
/// Advanced indexing x[indices...] with integer tensors (broadcast together); undefined entries mean ':'.
Tensor index(const Tensor& x, const std::vector<Tensor>& indices);
/// x[indices...] = values (accumulate adds, duplicates summed).
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
Tensor& index_put_(Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate = false);
/// 1-d tensor of x's elements where mask (broadcast) is true.
Tensor masked_select(const Tensor& x, const Tensor& mask);
/// (n, x.dim()) int64 coordinates of non-zero elements, row-major order.
Tensor nonzero(const Tensor& x);
/// Sorted unique values; optionally inverse indices (x's shape) and counts.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
/// (values, indices) sorted along dim; NaN sorts as largest. stable keeps equal elements' order.
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
/// k largest (or smallest) along dim, sorted.
std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
/// (..., num_classes) int64 one-hot of an int64 tensor; num_classes -1 = max + 1.
Tensor one_hot(const Tensor& x, int64_t num_classes = -1);

}  // namespace adept
