// Internal interface of the CPU conv2d algorithms (one file each): raw-pointer kernels on contiguous
// NCHW float/double buffers, described by a ConvGeometry. conv_cpu.cpp registers and dispatches them.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernels/conv.h"

namespace adept::cpu::conv {

// Each algorithm computes, for contiguous buffers of one dtype T (float or double):
//   forward:          y (N, C_out, H_out, W_out) = conv(x, w) + bias (bias may be null);
//   backward_input:   gx (N, C_in, H, W)         = conv2d's input gradient for gy;
//   backward_weight:  gw (C_out, C_in/g, kH, kW) = conv2d's weight gradient for x and gy.
// Outputs are fully overwritten.
#define ADEPT_CONV_ALGO_DECL(ALGO)                                                                    \
  template <class T> void ALGO##_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g); \
  template <class T> void ALGO##_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g);       \
  template <class T> void ALGO##_backward_weight(T* gw, const T* x, const T* gy, const ConvGeometry& g);

ADEPT_CONV_ALGO_DECL(reference)  // direct loops: the truth the others are tested against
ADEPT_CONV_ALGO_DECL(im2col)     // im2col/col2im + OpenBLAS GEMM per group
ADEPT_CONV_ALGO_DECL(depthwise)  // groups == C_in, C_out = m * C_in: direct per-plane loops
#undef ADEPT_CONV_ALGO_DECL

// Explicit float and double instantiations of one algorithm's three kernels (used once, in its .cpp).
#define ADEPT_CONV_ALGO_INSTANTIATE_T(ALGO, T)                                                    \
  template void ALGO##_forward<T>(T*, const T*, const T*, const T*, const ConvGeometry&);         \
  template void ALGO##_backward_input<T>(T*, const T*, const T*, const ConvGeometry&);            \
  template void ALGO##_backward_weight<T>(T*, const T*, const T*, const ConvGeometry&);
#define ADEPT_CONV_ALGO_INSTANTIATE(ALGO) \
  ADEPT_CONV_ALGO_INSTANTIATE_T(ALGO, float) ADEPT_CONV_ALGO_INSTANTIATE_T(ALGO, double)

// Winograd F(2x2, 3x3) (3x3, stride 1, dilation 1): forward, and the input gradient as the forward conv of
// gy with the flipped, channel-swapped kernel (needs pad <= 2). Its weight gradient is im2col's.
template <class T> void winograd_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g);
template <class T> void winograd_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g);

/// ceil(a / b) for b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Threads for a parallel loop over `items` items of `work` elements each: one inside a parallel region or
/// when the total work is below `min_work`.
inline int threads_for(int64_t items, int64_t work, int64_t min_work = 16384) {
  if (omp_in_parallel() || items * work < min_work) return 1;
  return static_cast<int>(std::min<int64_t>(items, omp_get_max_threads()));
}

/// For kernel column j (input column offset off = j * dil_w - pad_w): the output columns [ox0, ox1) whose
/// input column ox * stride_w + off lies inside [0, W).
struct ColRange {
  int64_t off, ox0, ox1;
};
inline ColRange col_range(const ConvGeometry& g, int64_t j) {
  const int64_t off = j * g.dil_w - g.pad_w;
  int64_t ox0 = off >= 0 ? 0 : ceil_div(-off, g.stride_w);
  int64_t ox1 = g.W - off <= 0 ? 0 : std::min(g.W_out, ceil_div(g.W - off, g.stride_w));
  ox0 = std::min(ox0, g.W_out);
  return {off, ox0, std::max(ox0, ox1)};
}

/// A grow-only per-thread scratch buffer (slot 0..3) of at least n elements of T: large conv temporaries
/// are reused across calls instead of being allocated (and page-faulted) each time.
template <class T>
T* scratch(int slot, size_t n) {
  thread_local std::vector<T> bufs[4];
  std::vector<T>& b = bufs[slot];
  if (b.size() < n) {
    b.clear();
    b.shrink_to_fit();
    b.resize(n);
  }
  return b.data();
}

/// BLAS GEMM on row-major matrices for float or double: C = alpha op(A) op(B) + beta C.
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc);

}  // namespace adept::cpu::conv
