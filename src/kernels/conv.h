// The conv2d kernel families (forward, input-gradient, weight-gradient) and the geometry they share.
// conv_transpose2d is conv2d's input-gradient, so three families cover both ops and all their grads.
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// The geometry of one conv2d y = conv(x, w): x (N, C_in, H, W), w (C_out, C_in/groups, kH, kW),
/// y (N, C_out, H_out, W_out). pad_h/pad_w are the top/left paddings; bottom/right follow from H_out/W_out
/// (so asymmetric 'same' padding needs nothing special).
struct ConvGeometry {
  int64_t N, C_in, H, W, C_out, kH, kW, H_out, W_out;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  /// The call computes the public op's own result (conv2d's forward, conv_transpose2d's input
  /// gradient), not one of its gradients: a backend whose user forced an algorithm that cannot
  /// compute it raises ValueError instead of falling back to another algorithm.
  bool strict = false;
  int64_t cin_g() const { return C_in / groups; }
  int64_t cout_g() const { return C_out / groups; }
};

// All tensors passed to these kernels are contiguous, of one floating dtype, with the shapes of the
// geometry; outputs are freshly allocated and fully written by the kernel. Each backend chooses its
// algorithm per call (CPU: src/backends/cpu/conv/conv_cpu.cpp); a dtype it lacks raises.

/// y = conv(x, w) + bias (bias (C_out) or undefined).
ADEPT_DECLARE_KERNEL(conv2d_forward_kernel,
                     void(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g))
/// gx = d<gy, conv(x, w)>/dx: (N, C_in, H, W) from gy (N, C_out, H_out, W_out) and w.
ADEPT_DECLARE_KERNEL(conv2d_backward_input_kernel,
                     void(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g))
/// gw = d<gy, conv(x, w)>/dw: (C_out, C_in/groups, kH, kW) from x and gy.
ADEPT_DECLARE_KERNEL(conv2d_backward_weight_kernel,
                     void(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g))

}  // namespace adept
