// The 2-d pooling kernel families (max, average, their adaptive forms, their gradients, and the per-plane
// scatter of max_unpool2d, which max pooling's gradient specialises) and the window geometry they use.
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// The windows of one 2-d pooling over planes (P, H, W) -> (P, H_out, W_out).
/// Fixed windows (adaptive false): output row i covers rows i*stride - padding + j*dilation, j < kernel,
/// clipped to the input. Adaptive windows (PyTorch's adaptive pooling) cover rows
/// [floor(i*H/H_out), ceil((i+1)*H/H_out)). Index [0] is height, [1] width.
struct Pool2dGeometry {
  int64_t H = 0, W = 0, H_out = 0, W_out = 0;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, padding[2] = {0, 0}, dilation[2] = {1, 1};
  bool adaptive = false;
  // Average pooling only: count padded positions in the divisor, or divide by a fixed value (> 0).
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0: none
};

/// First input row of adaptive window i of `out` windows over `in` rows: floor(i*in/out).
inline int64_t adaptive_start(int64_t i, int64_t out, int64_t in) { return (i / out) * in + ((i % out) * in) / out; }
/// One past the last input row of adaptive window i: ceil((i+1)*in/out).
inline int64_t adaptive_end(int64_t i, int64_t out, int64_t in) { return 1 + ((i + 1) * in - 1) / out; }

// Tensors passed to these kernels are contiguous and float (one dtype, but indices int64); outputs are
// freshly allocated and fully written by the kernel.

/// out/indices (P, H_out, W_out) = the maximum of each window of in (P, H, W) and its flat position h*W + w
/// in the plane. NaN counts as the maximum (the last NaN of a window wins); padding never wins. A dilated
/// window without any tap inside the input gives -inf and index -1.
ADEPT_DECLARE_KERNEL(max_pool2d_kernel,
                     void(const Tensor& out, const Tensor& indices, const Tensor& in, const Pool2dGeometry& g))
/// grad_in (P, H, W) = the gradient of max_pool2d_kernel for grad_out and the indices it returned (both
/// (P, H_out, W_out)): grad_in[p, m] sums grad_out[p, l] over the positions l (in order) with
/// indices[p, l] == m. plane_scatter_kernel with `add` for such indices, which let a backend visit only
/// the windows that can contain m.
ADEPT_DECLARE_KERNEL(max_pool2d_backward_kernel, void(const Tensor& grad_in, const Tensor& grad_out,
                                                      const Tensor& indices, const Pool2dGeometry& g))
/// out (P, H_out, W_out) = the mean of each window of in (P, H, W) (divisor per count_include_pad /
/// divisor_override; adaptive windows divide by their size).
ADEPT_DECLARE_KERNEL(avg_pool2d_kernel, void(const Tensor& out, const Tensor& in, const Pool2dGeometry& g))
/// grad_in (P, H, W) = the gradient of avg_pool2d_kernel for grad_out (P, H_out, W_out).
ADEPT_DECLARE_KERNEL(avg_pool2d_backward_kernel,
                     void(const Tensor& grad_in, const Tensor& grad_out, const Pool2dGeometry& g))
/// out (P, M) = zeros, then out[p, index[p, l]] = src[p, l] (or += with `add`) for src/index (P, L), l in
/// order (the last duplicate wins without `add`). Indices are below M (checked by the op); negative ones
/// (empty max-pooling windows) are skipped.
ADEPT_DECLARE_KERNEL(plane_scatter_kernel, void(const Tensor& out, const Tensor& src, const Tensor& index, bool add))

}  // namespace adept
