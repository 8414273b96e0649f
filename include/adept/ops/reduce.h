// Reductions over any set of dims (negative allowed; empty `dims` = all dims) with keepdim.
// Empty inputs: sum 0, prod 1, mean NaN, all true, any false; max/min/argmax/argmin of an empty
// slice raise IndexError, as PyTorch. Integer/bool sum and prod accumulate in int64.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "adept/tensor.h"

namespace adept {

Tensor sum(const Tensor& x, const Shape& dims = {}, bool keepdim = false, std::optional<Dtype> dtype = std::nullopt);
Tensor mean(const Tensor& x, const Shape& dims = {}, bool keepdim = false);
Tensor prod(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
/// Maximum of all elements (0-d).
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
/// (values, indices) along dim.
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& x, const Shape& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const Shape& dims = {}, bool keepdim = false);
/// Index of the first maximum (flattened when dim is absent); int64.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
/// Variance with `correction` (1 = unbiased, Bessel), standard deviation.
Tensor var(const Tensor& x, const Shape& dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, const Shape& dims = {}, int64_t correction = 1, bool keepdim = false);
/// p-norm (p = 2 default; inf, -inf, 0 and any positive p).
Tensor norm(const Tensor& x, double p = 2, const Shape& dims = {}, bool keepdim = false);
Tensor logsumexp(const Tensor& x, const Shape& dims, bool keepdim = false);
Tensor all(const Tensor& x, const Shape& dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, const Shape& dims = {}, bool keepdim = false);
/// Numerically stable softmax / log-softmax along `dim` (optionally in `dtype`).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<Dtype> dtype = std::nullopt);

}  // namespace adept
