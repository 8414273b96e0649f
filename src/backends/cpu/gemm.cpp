// CPU batched GEMM through OpenBLAS (OpenMP build). Operands with a unit stride in either matrix
// dim are passed as (possibly transposed) BLAS views without copying; others are made contiguous.
// 16-bit floats are computed in float32 and rounded once at the end.
#include <cblas.h>

#include "kernels/linalg.h"
#include "kernels/pointwise.h"
#include "kernels/tensor_view.h"

namespace adept::cpu {
namespace {

// Describes a (rows, cols) matrix view for BLAS: leading dimension and transpose flag.
struct BlasView {
  bool trans;
  int64_t ld;
};

bool blas_view(const Tensor& m, BlasView& v) {  // m: (B, R, C)
  int64_t rs = m.stride(1), cs = m.stride(2), rows = m.size(1), cols = m.size(2);
  if (cs == 1 && (rs >= std::max<int64_t>(1, cols) || rows == 1)) {
    v = {false, std::max<int64_t>({rs, cols, 1})};
    return true;
  }
  if (rs == 1 && (cs >= std::max<int64_t>(1, rows) || cols == 1)) {
    v = {true, std::max<int64_t>({cs, rows, 1})};
    return true;
  }
  return false;
}

template <class T>
void gemm_batch(const Tensor& out, const Tensor& a_in, const Tensor& b_in) {
  Tensor a = a_in, b = b_in;
  BlasView va, vb;
  if (!blas_view(a, va)) { a = contiguous_buffer(a); blas_view(a, va); }
  if (!blas_view(b, vb)) { b = contiguous_buffer(b); blas_view(b, vb); }
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  for (int64_t i = 0; i < B; ++i) {
    const T* ai = pa + i * a.stride(0);
    const T* bi = pb + i * b.stride(0);
    T* ci = pc + i * out.stride(0);
    auto ta = va.trans ? CblasTrans : CblasNoTrans, tb = vb.trans ? CblasTrans : CblasNoTrans;
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, ai, va.ld, bi, vb.ld, 0.0f, ci, std::max<int64_t>(N, 1));
    } else {
      cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, ai, va.ld, bi, vb.ld, 0.0, ci, std::max<int64_t>(N, 1));
    }
  }
}

// Integer GEMM: a plain strided loop (no BLAS for integers). Products and sums wrap modulo 2^64 and
// are truncated to T, which gives the same low bits as PyTorch's wrap-around in T.
template <class T>
void gemm_int(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t B = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = out.data_ptr<T>();
  const int64_t as0 = a.stride(0), as1 = a.stride(1), as2 = a.stride(2);
  const int64_t bs0 = b.stride(0), bs1 = b.stride(1), bs2 = b.stride(2);
  const int64_t cs0 = out.stride(0), cs1 = out.stride(1), cs2 = out.stride(2);
  for (int64_t i = 0; i < B; ++i) {
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        uint64_t acc = 0;
        for (int64_t k = 0; k < K; ++k) {
          acc += static_cast<uint64_t>(static_cast<int64_t>(pa[i * as0 + m * as1 + k * as2])) *
                 static_cast<uint64_t>(static_cast<int64_t>(pb[i * bs0 + k * bs1 + n * bs2]));
        }
        pc[i * cs0 + m * cs1 + n * cs2] = static_cast<T>(acc);
      }
    }
  }
}

void bmm_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return;
  if (a.size(2) == 0) {
    fill_kernel().get(kCPU)(out, 0);
    return;
  }
  switch (out.dtype()) {
    case kFloat32: gemm_batch<float>(out, a, b); break;
    case kFloat64: gemm_batch<double>(out, a, b); break;
    case kFloat16: case kBFloat16: {
      Tensor o32 = kernel_buffer(out.sizes(), kFloat32, kCPU), a32 = kernel_buffer(a.sizes(), kFloat32, kCPU),
             b32 = kernel_buffer(b.sizes(), kFloat32, kCPU);
      copy_kernel().get(kCPU)(a32, a);
      copy_kernel().get(kCPU)(b32, b);
      gemm_batch<float>(o32, a32, b32);
      copy_kernel().get(kCPU)(out, o32);
      break;
    }
    case kUInt8: gemm_int<uint8_t>(out, a, b); break;
    case kInt32: gemm_int<int32_t>(out, a, b); break;
    case kInt64: gemm_int<int64_t>(out, a, b); break;
    default: detail::throw_dtype_unsupported("matmul", out.dtype());
  }
}

}  // namespace

ADEPT_REGISTER_KERNEL(bmm_kernel, CPU, bmm_cpu)

}  // namespace adept::cpu
