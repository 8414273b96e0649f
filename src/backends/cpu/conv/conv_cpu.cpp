// Registers the CPU conv2d kernels: each call runs the algorithm of choose_algo (algo.h) on float or
// double buffers. Also the BLAS GEMM wrapper the algorithms share.
#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/conv/algo.h"
#include "backends/cpu/conv/conv_cpu.h"
#include "backends/cpu/simd.h"

namespace adept::cpu::conv {

template <class T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc) {
  const auto ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
}
template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t,
                          float, float*, int64_t);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);

namespace {

template <class T>
const T* ptr_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

[[noreturn]] void unsupported(const char* what, ConvAlgo a) {
  throw ValueError(fmt::format("conv2d: algorithm '{}' has no {} kernel", conv_algo_name(a), what));
}

template <class T>
void forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  T* yp = y.data_ptr<T>();
  const T *xp = x.data_ptr<T>(), *wp = w.data_ptr<T>(), *bp = ptr_or_null<T>(b);
  const ConvAlgo a = choose_algo(g, ConvDir::Forward);
  switch (a) {
    case ConvAlgo::Reference: reference_forward(yp, xp, wp, bp, g); break;
    case ConvAlgo::Im2col: im2col_forward(yp, xp, wp, bp, g); break;
    case ConvAlgo::Winograd: winograd_forward(yp, xp, wp, bp, g); break;
    case ConvAlgo::Depthwise: depthwise_forward(yp, xp, wp, bp, g); break;
    default: unsupported("forward", a);
  }
  if (g.silu) {  // the fused epilogue: a second pass over y on the CPU (float32: the SIMD SiLU)
    const int64_t n = y.numel();
    if constexpr (std::is_same_v<T, float>) {
      const simd::UnaryRunF32 silu = simd::unary_run_f32(UnaryOp::Silu);
      constexpr int64_t kChunk = 16384;
#pragma omp parallel for if (n > 65536 && !omp_in_parallel())
      for (int64_t c = 0; c < n; c += kChunk) silu(yp + c, yp + c, std::min(kChunk, n - c), 0, 0);
    } else {
#pragma omp parallel for if (n > 65536 && !omp_in_parallel())
      for (int64_t i = 0; i < n; ++i) yp[i] = yp[i] / (T(1) + std::exp(-yp[i]));
    }
  }
}

template <class T>
void backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  T* gxp = gx.data_ptr<T>();
  const T *gyp = gy.data_ptr<T>(), *wp = w.data_ptr<T>();
  const ConvAlgo a = choose_algo(g, ConvDir::Input);
  switch (a) {
    case ConvAlgo::Reference: reference_backward_input(gxp, gyp, wp, g); break;
    case ConvAlgo::Im2col: im2col_backward_input(gxp, gyp, wp, g); break;
    case ConvAlgo::Winograd: winograd_backward_input(gxp, gyp, wp, g); break;
    case ConvAlgo::Depthwise: depthwise_backward_input(gxp, gyp, wp, g); break;
    default: unsupported("input-gradient", a);
  }
}

template <class T>
void backward_weight(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  T* gwp = gw.data_ptr<T>();
  const T *xp = x.data_ptr<T>(), *gyp = gy.data_ptr<T>();
  const ConvAlgo a = choose_algo(g, ConvDir::Weight);
  switch (a) {
    case ConvAlgo::Reference: reference_backward_weight(gwp, xp, gyp, g); break;
    case ConvAlgo::Im2col: im2col_backward_weight(gwp, xp, gyp, g); break;
    case ConvAlgo::Depthwise: depthwise_backward_weight(gwp, xp, gyp, g); break;
    default: unsupported("weight-gradient", a);
  }
}

void forward_cpu(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  if (y.dtype() == kFloat32) forward<float>(y, x, w, b, g);
  else forward<double>(y, x, w, b, g);
}
void backward_input_cpu(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  if (gx.dtype() == kFloat32) backward_input<float>(gx, gy, w, g);
  else backward_input<double>(gx, gy, w, g);
}
void backward_weight_cpu(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  if (gw.dtype() == kFloat32) backward_weight<float>(gw, x, gy, g);
  else backward_weight<double>(gw, x, gy, g);
}

}  // namespace

ADEPT_REGISTER_KERNEL(conv2d_forward_kernel, CPU, forward_cpu)
ADEPT_REGISTER_KERNEL(conv2d_backward_input_kernel, CPU, backward_input_cpu)
ADEPT_REGISTER_KERNEL(conv2d_backward_weight_kernel, CPU, backward_weight_cpu)

}  // namespace adept::cpu::conv
