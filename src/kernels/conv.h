// The conv2d kernel families (forward, input-gradient, weight-gradient) and the geometry they share.
// conv_transpose2d is conv2d's input-gradient, so three families cover both ops and all their grads.
#pragma once
#include <cstdint>
#include <optional>

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
  /// Fused epilogue of the forward kernel: y = silu(conv(x, w) + bias) instead of conv(x, w) + bias
  /// (set only for calls without autograd, e.g. eval-mode Conv blocks; ignored by the gradient kernels).
  bool silu = false;
  int64_t cin_g() const { return C_in / groups; }
  int64_t cout_g() const { return C_out / groups; }
};

/// The conv2d algorithms, named as ADEPT_CONV_ALGO spells them. Each backend implements a subset and
/// picks one per call by a deterministic rule (CPU: backends/cpu/conv/algo.h; Vulkan:
/// backends/vulkan/kernels/conv/conv.h):
///   reference      direct loops (CPU)
///   im2col         im2col / col2im and a BLAS GEMM per group (CPU)
///   implicit_gemm  a tiled GEMM whose K index decodes to (c, ky, kx): no im2col buffer (Vulkan)
///   pointwise      1x1, stride 1, no padding: a GEMM over channels (Vulkan)
///   depthwise      groups == C_in: per-plane direct loops (CPU, Vulkan)
///   winograd       Winograd F(2x2, 3x3), 3x3 stride 1 dilation 1 (CPU, Vulkan); Lavin & Gray 2016
///   winograd_f4    Winograd F(4x4, 3x3) (Vulkan)
enum class ConvAlgo : int { Reference, Im2col, ImplicitGemm, Pointwise, Depthwise, Winograd, WinogradF4 };
/// Which of the three kernels a call is.
enum class ConvDir { Forward, Input, Weight };
const char* conv_algo_name(ConvAlgo a);
/// The algorithm ADEPT_CONV_ALGO forces (read on every call so tests and users can switch it at run time);
/// nullopt when unset, empty or "auto". ValueError for a name that is none of the above.
std::optional<ConvAlgo> forced_conv_algo();
/// Raises ValueError when a user forced an algorithm `forced` that cannot compute a strict call (see
/// ConvGeometry::strict) on `backend`; `why` says what the algorithm needs. Returns otherwise.
void check_forced_conv_algo(const std::optional<ConvAlgo>& forced, bool can, const ConvGeometry& g, ConvDir dir,
                            const char* backend, const char* why);

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
