// Registers the Vulkan conv2d kernels and holds the rule that picks an algorithm per call.
//
// The rule (deterministic: it depends on the geometry, the dtype and the driver's loop limit only). Fewer
// multiplies win on lavapipe (a CPU-type device, bound by arithmetic) and, since the batched GEMM under
// Winograd and the 1x1 path runs unrolled, on the H200 too (GPU time, batch 8, float32, ms forward / input
// gradient, bench/results/h200_yolo11n_train_profile.json; implicit_gemm vs winograd_f4: 16 ch 160x160
// 0.23 / 0.75 vs 0.15 / 0.29, 64 ch 80x80 0.26 / 0.78 vs 0.15 / 0.29, 128 ch 40x40 0.53 / 1.51 vs 0.15 /
// 0.30, 256 ch 20x20 0.41 / 1.16 vs 0.14 / 0.31; 1x1 128 -> 256 ch 40x40 implicit_gemm 0.068 / 0.212 vs
// pointwise 0.043 / 0.106, 32 -> 32 ch 160x160 0.076 / 0.212 vs 0.081 / 0.178):
//   depthwise      every depthwise geometry (groups == C_in, C_out % C_in == 0), all three directions, unless
//                  a per-element loop would pass the driver's loop limit (lavapipe; then implicit_gemm)
//   pointwise      1x1, stride 1, no padding (forward and input gradient; bmm, on cooperative matrices for
//                  float16 where the device has them)
//   winograd_f4    3x3, stride 1, dilation 1 with C_in/groups >= 16 and C_out/groups >= 16
//                  (forward; input gradient with padding <= 2) when the batched GEMM has at least one full
//                  column tile of Winograd tiles: N * ceil(H_o / 4) * ceil(W_o / 4) >= 128 (H_o x W_o: the
//                  direction's output plane, H_out x W_out forward, H x W for the input gradient)
//   winograd       the same convolutions with fewer tiles (F(4x4)'s GEMMs would run mostly empty)
//   implicit_gemm  everything else (strided, few channels, other kernels), and every weight gradient but
//                  the depthwise one
// lavapipe (2 shared cores, harness perf mode, float32, C_in = C_out, pad 1, ms per call, best of three
// runs, one for the last three rows; implicit_gemm / winograd / winograd_f4):
//   batch 2, 16 ch, 80x80:    540 /  287 /  150      batch 2, 16 ch, 20x20:    34 /   16 /   16
//   batch 2, 32 ch, 80x80:    775 /  422 /  306      batch 2, 64 ch, 40x40:   530 /  215 /  124
//   batch 2, 64 ch, 20x20:    108 /   51 /   55      batch 2, 128 ch, 20x20:  506 /  105 /  117
//   batch 2, 256 ch, 20x20:  2377 /  549 /  644      batch 8, 256 ch, 20x20: 7361 / 1582 /  924
//   batch 8, 64 ch, 80x80:   8246 / 4364 / 2237      batch 4, 128 ch, 40x40: 4765 /  864 /  721
//   batch 8, 64 ch, 56x56:   3636 / 2446 / 1124
// and 1x1 (adept_vulkan_conv_bench, float32 forward / input gradient, implicit_gemm vs pointwise):
//   batch 2, 32 -> 32 ch, 40x40: 17.0 / 32.9 vs 9.1 / 15.5;  batch 2, 64 -> 128 ch, 20x20: 14.0 / 28.7 vs 6.4 / 15.5
// H200 before the matmul ran unrolled (bench/results/h200_conv.json, batch 8, ms forward / input gradient): 64 ch 80x80 3x3 float32:
//   implicit_gemm 0.54 / 1.35, winograd 1.77 / 3.44, winograd_f4 1.10 / 2.13; 256 ch 20x20: 0.55 / 1.24,
//   1.24 / 2.33, 1.04 / 1.92 (every 3x3 layer alike); 1x1 32 ch 160x160 float32: implicit_gemm 0.18 / 0.40,
//   pointwise 0.88 / 1.77; float16: implicit_gemm 0.19 / 0.45, pointwise 0.13 / 0.26.
// ADEPT_CONV_ALGO forces an algorithm wherever it can compute the call (else the rule's choice, or
// ValueError for a strict call, kernels/conv.h).
#include "backends/vulkan/kernels/conv/conv.h"
#include <algorithm>

#include "backends/vulkan/launch.h"

namespace adept::vk::conv {
namespace {

bool is_pointwise(const ConvGeometry& g) {
  return g.kH == 1 && g.kW == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0 &&
         g.H_out == g.H && g.W_out == g.W;
}

bool is_depthwise(const ConvGeometry& g) { return g.groups == g.C_in && g.C_out % g.C_in == 0; }
// Winograd: 3x3, stride 1, dilation 1 (forward; input gradient with pad <= 2, its padding being 2 - pad).
bool is_winograd(const ConvGeometry& g, ConvDir d) {
  const bool shape = g.kH == 3 && g.kW == 3 && g.stride_h == 1 && g.stride_w == 1 && g.dil_h == 1 && g.dil_w == 1;
  return shape && (d == ConvDir::Forward || (d == ConvDir::Input && g.pad_h <= 2 && g.pad_w <= 2));
}

bool can_compute(ConvAlgo a, const ConvGeometry& g, ConvDir d) {
  switch (a) {
    case ConvAlgo::ImplicitGemm: return true;
    case ConvAlgo::Pointwise: return is_pointwise(g) && d != ConvDir::Weight;
    case ConvAlgo::Depthwise: return is_depthwise(g);
    case ConvAlgo::Winograd:
    case ConvAlgo::WinogradF4: return is_winograd(g, d);
    default: return false;
  }
}

const char* requirement(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::Pointwise: return "pointwise needs a 1x1 kernel, stride 1 and no padding (forward and input gradient)";
    case ConvAlgo::Depthwise: return "depthwise needs groups == C_in and C_out a multiple of C_in";
    case ConvAlgo::Winograd:
    case ConvAlgo::WinogradF4:
      return "winograd needs a 3x3 kernel, stride 1 and dilation 1 (forward; input gradient with padding <= 2)";
    default: return "Vulkan has implicit_gemm, pointwise, depthwise, winograd and winograd_f4";
  }
}

ConvAlgo rule(const VulkanDeviceInfo& info, const ConvGeometry& g, ConvDir d) {
  // Depthwise unless a per-element loop (its window, or the m windows over an input element) would pass the
  // driver's loop limit (lavapipe: a 1-channel conv with many outputs), where implicit_gemm splits the sum.
  const int64_t steps = g.kH * g.kW * (d == ConvDir::Input ? g.C_out / std::max<int64_t>(g.C_in, 1) : 1);
  if (is_depthwise(g) && (!info.loop_iteration_limit || steps <= info.loop_iteration_limit / 2)) {
    return ConvAlgo::Depthwise;
  }
  if (can_compute(ConvAlgo::Pointwise, g, d)) return ConvAlgo::Pointwise;
  if (is_winograd(g, d) && g.cin_g() >= 16 && g.cout_g() >= 16) {
    const int64_t h = d == ConvDir::Forward ? g.H_out : g.H, w = d == ConvDir::Forward ? g.W_out : g.W;
    return g.N * ((h + 3) / 4) * ((w + 3) / 4) >= 128 ? ConvAlgo::WinogradF4 : ConvAlgo::Winograd;
  }
  return ConvAlgo::ImplicitGemm;
}

bool float_dtype(int, Dtype d) { return is_floating_point(d); }

void check_dtype(const Tensor& t, const char* op) {
  if (!is_floating_point(t.dtype())) {
    throw NotImplementedForDevice(fmt::format("{}: dtype {} is not implemented for device '{}' (the floating dtypes are)",
                                              op, dtype_name(t.dtype()), t.device().str()));
  }
}

[[noreturn]] void no_kernel(ConvAlgo a, const char* what) {
  throw NotImplementedForDevice(fmt::format("conv2d: algorithm '{}' has no {} kernel on Vulkan", conv_algo_name(a), what));
}

void forward_vk(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  check_dtype(y, "conv2d");
  const ConvAlgo a = choose_algo(context_of(y).info(), g, ConvDir::Forward);
  switch (a) {
    case ConvAlgo::ImplicitGemm: implicit_gemm_forward(y, x, w, b, g); break;
    case ConvAlgo::Pointwise: pointwise_forward(y, x, w, b, g); break;
    case ConvAlgo::Depthwise: depthwise_forward(y, x, w, b, g); break;
    case ConvAlgo::Winograd: winograd_forward(y, x, w, b, g, 2); break;
    case ConvAlgo::WinogradF4: winograd_forward(y, x, w, b, g, 4); break;
    default: no_kernel(a, "forward");
  }
}

void backward_input_vk(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  check_dtype(gx, "conv_transpose2d");
  const ConvAlgo a = choose_algo(context_of(gx).info(), g, ConvDir::Input);
  switch (a) {
    case ConvAlgo::ImplicitGemm: implicit_gemm_backward_input(gx, gy, w, g); break;
    case ConvAlgo::Pointwise: pointwise_backward_input(gx, gy, w, g); break;
    case ConvAlgo::Depthwise: depthwise_backward_input(gx, gy, w, g); break;
    case ConvAlgo::Winograd: winograd_backward_input(gx, gy, w, g, 2); break;
    case ConvAlgo::WinogradF4: winograd_backward_input(gx, gy, w, g, 4); break;
    default: no_kernel(a, "input-gradient");
  }
}

void backward_weight_vk(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  check_dtype(gw, "conv2d");
  const ConvAlgo a = choose_algo(context_of(gw).info(), g, ConvDir::Weight);
  switch (a) {
    case ConvAlgo::ImplicitGemm: implicit_gemm_backward_weight(gw, x, gy, g); break;
    case ConvAlgo::Depthwise: depthwise_backward_weight(gw, x, gy, g); break;
    default: no_kernel(a, "weight-gradient");
  }
}

}  // namespace

ConvAlgo choose_algo(const VulkanDeviceInfo& info, const ConvGeometry& g, ConvDir dir) {
  const std::optional<ConvAlgo> f = forced_conv_algo();
  if (f && can_compute(*f, g, dir)) return *f;
  if (f) check_forced_conv_algo(f, false, g, dir, "vulkan", requirement(*f));
  return rule(info, g, dir);
}

}  // namespace adept::vk::conv

namespace adept::vk {
ADEPT_REGISTER_KERNEL_SUPPORTING(conv2d_forward_kernel, Vulkan, conv::forward_vk, conv::float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(conv2d_backward_input_kernel, Vulkan, conv::backward_input_vk, conv::float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(conv2d_backward_weight_kernel, Vulkan, conv::backward_weight_vk, conv::float_dtype)
}  // namespace adept::vk
