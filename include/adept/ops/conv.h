// 2-d convolution and transposed convolution (torch.nn.functional.conv2d / conv_transpose2d), with
// several algorithms per backend behind one deterministic selection rule.
#pragma once
#include <cstdint>
#include <cstddef>
#include <string>
#include <utility>

#include "adept/ops/options.h"
#include "adept/tensor.h"

namespace adept {

/// The string form of conv2d's padding ("same" or "valid"). Constructible from a string literal or a
/// std::string but not from an integer, so `conv2d(x, w, {}, 1, 0)` picks the numeric padding unambiguously.
struct PaddingMode {
  std::string value;
  template <size_t N>
  PaddingMode(const char (&s)[N]) : value(s) {}           // NOLINT(google-explicit-constructor)
  PaddingMode(std::string s) : value(std::move(s)) {}    // NOLINT(google-explicit-constructor)
};

/// 2-d cross-correlation (PyTorch's conv2d): out[n, o, y, x] = bias[o] +
///   sum_{c in group(o), i, j} input[n, c, y*sH - padH + i*dH, x*sW - padW + j*dW] * weight[o, c', i, j]
/// (positions outside the input read zero). Follows https://pytorch.org/docs/1.13/generated/torch.nn.functional.conv2d.html.
///
/// Shapes: input (N, C_in, H, W) or unbatched (C_in, H, W); weight (C_out, C_in/groups, kH, kW); bias (C_out)
/// or undefined; result (N, C_out, H_out, W_out) with H_out = (H + 2 padH - dH (kH - 1) - 1) / sH + 1.
/// Dtypes: float32, float64, float16, bfloat16 (the half types accumulate in float32 and round the result; the
/// CPU computes them on float32 copies). Gradients flow to input, weight and bias, and the backward functions
/// are themselves differentiable (double backward). Results are deterministic on every backend (fixed-order
/// sums, no atomics).
///
/// Algorithms, chosen per call by a deterministic rule on the shapes (and, on Vulkan, the dtype and the
/// device type); names as ADEPT_CONV_ALGO spells them:
///   CPU:    `depthwise` when groups == C_in (direct per-plane loops, any channel multiplier C_out / C_in);
///           `im2col` otherwise (im2col + OpenBLAS GEMM per group; 1x1 stride-1 unpadded convs skip the
///           im2col). `winograd` F(2x2, 3x3) and `reference` (the direct loops the others are tested against)
///           are available but not auto-selected (Winograd lost to im2col on the YOLO11n shapes).
///   Vulkan: `depthwise`; `pointwise` (1x1, stride 1, no padding: a GEMM over channels); `winograd`
///           F(2x2, 3x3) and `winograd_f4` F(4x4, 3x3) (Lavin & Gray 2016; 3x3, stride 1, dilation 1; forward and
///           input gradient); `implicit_gemm` (a shared-memory tiled GEMM whose K index decodes to (c, ky, kx):
///           every geometry, and every non-depthwise weight gradient). The rule and its measurements (lavapipe,
///           H200) are in src/backends/vulkan/kernels/conv/dispatch.cpp: Winograd and pointwise on CPU-type
///           devices, implicit_gemm on GPUs (pointwise for float16 with cooperative matrices).
/// Winograd mixes the inputs of a whole tile in its transforms, so a non-finite input (inf, NaN) makes its
/// output tile (2x2 or 4x4, beyond the receptive field) NaN, as in other libraries' Winograd kernels; the
/// direct and GEMM algorithms keep non-finite values to the outputs whose windows contain them.
/// The environment variable ADEPT_CONV_ALGO = auto | reference | im2col | implicit_gemm | pointwise | depthwise |
/// winograd | winograd_f4 (read on every call) forces one for the op's own computation (its gradients fall back
/// to the rule where the forced one cannot run); ValueError naming the op when the forced algorithm cannot
/// compute that shape or the device lacks it, and for an unknown name.
///
/// Errors: ShapeError for an input that is not 3-d/4-d, a weight that is not 4-d, channels that do not match
/// weight and groups, a bias of the wrong size, an empty spatial input or a kernel larger than the padded
/// input; ShapeError also for non-positive stride/dilation/groups and negative padding (RuntimeError in Python,
/// like PyTorch); DtypeError for integer/bool tensors or mismatched input/weight/bias dtypes; DeviceError for
/// operands on different devices; NotImplementedForDevice (naming conv2d) for devices without a kernel.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntPair stride = 1,
              IntPair padding = 0, IntPair dilation = 1, int64_t groups = 1);

/// conv2d with padding "valid" (no padding) or "same" (output size == input size; the total padding
/// dilation*(k-1) is split with the extra element at the bottom/right, as PyTorch). "same" with a stride
/// other than 1 is a ShapeError and an unknown string an adept::Error (both RuntimeError, like PyTorch).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride,
              const PaddingMode& padding, IntPair dilation = 1, int64_t groups = 1);

/// silu(conv2d(input, weight, bias, stride, padding, dilation, groups)) (SiLU: Elfwing et al. 2017), with
/// the activation applied in the convolution's output write (a fused epilogue) when no gradient is recorded
/// (no operand requires grad, or grad mode is off); otherwise conv2d followed by silu, differentiable as
/// both. Shapes, dtypes and errors as conv2d. Used by eval-mode Conv blocks (models/yolo).
Tensor conv2d_silu(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntPair stride = 1,
                   IntPair padding = 0, IntPair dilation = 1, int64_t groups = 1);

/// 2-d transposed convolution (the gradient of conv2d with respect to its input; PyTorch's
/// conv_transpose2d, https://pytorch.org/docs/1.13/generated/torch.nn.functional.conv_transpose2d.html).
/// Shapes: input (N, C_in, H, W) or (C_in, H, W); weight (C_in, C_out/groups, kH, kW); bias (C_out);
/// result (N, C_out, H_out, W_out) with H_out = (H - 1) sH - 2 padH + dH (kH - 1) + output_paddingH + 1.
/// output_padding must be smaller than stride or dilation (ShapeError otherwise); an output size below 1 is a
/// ShapeError. Other errors and dtypes as conv2d. Computed by conv2d's input-gradient kernel (GEMM + col2im for
/// im2col, a gather for Vulkan's implicit_gemm, Winograd on the flipped kernel); ADEPT_CONV_ALGO applies the
/// same way.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntPair stride = 1,
                        IntPair padding = 0, IntPair output_padding = 0, int64_t groups = 1, IntPair dilation = 1);

}  // namespace adept
