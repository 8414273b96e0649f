// Kernel family of matrix products.
#pragma once
#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// Batched GEMM: out(B,M,N) = a(B,M,K) @ b(B,K,N), numeric dtypes, any strides; out contiguous.
ADEPT_DECLARE_KERNEL(bmm_kernel, void(const Tensor& out, const Tensor& a, const Tensor& b))

}  // namespace adept
