// Internal interface of the CPU conv2d algorithms (one file each): raw-pointer kernels on contiguous
// NCHW float/double buffers, described by a ConvGeometry. conv_cpu.cpp registers and dispatches them.
#pragma once
#include <cstddef>
#include <vector>

#include "nn/functional/conv_kernels.h"

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

// Winograd F(2x2, 3x3) (3x3, stride 1, dilation 1): forward, and the input gradient as the forward conv of
// gy with the flipped, channel-swapped kernel (needs pad <= 2). Its weight gradient is im2col's.
template <class T> void winograd_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g);
template <class T> void winograd_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g);

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
