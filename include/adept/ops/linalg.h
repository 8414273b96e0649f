// Matrix products on float dtypes (OpenBLAS sgemm/dgemm on CPU; 16-bit floats computed in float32).
#pragma once
#include "adept/tensor.h"

namespace adept {

/// torch.matmul: 1-d x 1-d = dot, 2-d x 2-d = mm, batched with broadcasting of batch dims;
/// a 1-d operand gets a dim prepended (left) or appended (right) that is removed afterwards.
/// ShapeError when inner sizes differ; DtypeError for mixed or integer dtypes.
Tensor matmul(const Tensor& a, const Tensor& b);
/// (n, k) @ (k, m) -> (n, m).
Tensor mm(const Tensor& a, const Tensor& b);
/// (b, n, k) @ (b, k, m) -> (b, n, m).
Tensor bmm(const Tensor& a, const Tensor& b);
/// beta * input + alpha * (m1 @ m2), input broadcast to (n, m).
Tensor addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor dot(const Tensor& a, const Tensor& b);

}  // namespace adept
