// Internal interface of the Vulkan conv2d algorithms (one file each, shader shaders/conv_<algo>*.comp):
// each computes one of conv2d's three kernels on contiguous Vulkan tensors of one floating dtype (float32,
// float16, bfloat16 accumulate in float32; float64 in float64) described by a ConvGeometry. dispatch.cpp
// registers the families and picks the algorithm per call (choose_algo).
#pragma once
#include "adept/tensor.h"
#include "adept/vulkan.h"
#include "kernels/conv.h"

namespace adept::vk::conv {

// Each algorithm ALGO provides, where it can compute the call (choose_algo checks first):
//   ALGO_forward(y, x, w, bias, g):     y (N, C_out, H_out, W_out) = conv(x, w) + bias (bias may be undefined),
//                                       then silu(y) when g.silu;
//   ALGO_backward_input(gx, gy, w, g):  gx (N, C_in, H, W) = conv2d's input gradient for gy;
//   ALGO_backward_weight(gw, x, gy, g): gw (C_out, C_in/groups, kH, kW) = conv2d's weight gradient.
// Outputs are fully overwritten; results are deterministic (no atomics: every sum has one fixed order).
void implicit_gemm_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g);
void implicit_gemm_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g);
void implicit_gemm_backward_weight(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// 1x1, stride 1, no padding: GEMMs over channels on bmm_kernel (per group). Its weight gradient is
// implicit_gemm's.
void pointwise_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g);
void pointwise_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g);

// groups == C_in, C_out = m * C_in: one invocation per written element (weight gradient: a fixed-order
// workgroup reduction per weight element).
void depthwise_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g);
void depthwise_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g);
void depthwise_backward_weight(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// Winograd F(m x m, 3x3), m = 2 or 4 (3x3, stride 1, dilation 1): input / weight / output transform
// shaders around a batched GEMM; the input gradient is the same algorithm on gy with the flipped,
// channel-swapped kernel (padding 2 - pad, so pad <= 2). The weight gradient is implicit_gemm's.
void winograd_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g,
                      int m);
void winograd_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g, int m);

/// out (contiguous) = the fixed-order sum over dim 0 of `partials` (splits, out.numel()), split-K partial
/// sums in the accumulation dtype (reduce over dim 0), converted to out's dtype.
void sum_splits(const Tensor& out, const Tensor& partials, const char* op);

/// The algorithm for one call on a device described by `info` (see dispatch.cpp for the rule and its
/// measurements); ADEPT_CONV_ALGO overrides it where the forced algorithm can compute the call.
ConvAlgo choose_algo(const VulkanDeviceInfo& info, const ConvGeometry& g, ConvDir dir);

}  // namespace adept::vk::conv
