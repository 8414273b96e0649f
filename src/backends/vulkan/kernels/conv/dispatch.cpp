// Registers the Vulkan conv2d kernels and holds the rule that picks an algorithm per call.
//
// The rule (deterministic: it depends on the geometry and the dtype only):
//   depthwise      every depthwise geometry (groups == C_in, C_out % C_in == 0), all three directions
//   pointwise      1x1, stride 1, no padding (forward and input gradient)
//   implicit_gemm  everything else
// ADEPT_CONV_ALGO forces an algorithm wherever it can compute the call (else the rule's choice, or
// ValueError for a strict call, kernels/conv.h).
#include "backends/vulkan/kernels/conv/conv.h"
#include "backends/vulkan/launch.h"

namespace adept::vk::conv {
namespace {

bool is_pointwise(const ConvGeometry& g) {
  return g.kH == 1 && g.kW == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0 &&
         g.H_out == g.H && g.W_out == g.W;
}

bool is_depthwise(const ConvGeometry& g) { return g.groups == g.C_in && g.C_out % g.C_in == 0; }

bool can_compute(ConvAlgo a, const ConvGeometry& g, ConvDir d) {
  switch (a) {
    case ConvAlgo::ImplicitGemm: return true;
    case ConvAlgo::Pointwise: return is_pointwise(g) && d != ConvDir::Weight;
    case ConvAlgo::Depthwise: return is_depthwise(g);
    default: return false;
  }
}

const char* requirement(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::Pointwise: return "pointwise needs a 1x1 kernel, stride 1 and no padding (forward and input gradient)";
    case ConvAlgo::Depthwise: return "depthwise needs groups == C_in and C_out a multiple of C_in";
    default: return "Vulkan has implicit_gemm, pointwise and depthwise";
  }
}

ConvAlgo rule(const ConvGeometry& g, ConvDir d) {
  if (is_depthwise(g)) return ConvAlgo::Depthwise;
  if (can_compute(ConvAlgo::Pointwise, g, d)) return ConvAlgo::Pointwise;
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
  const ConvAlgo a = choose_algo(g, ConvDir::Forward, y.dtype());
  switch (a) {
    case ConvAlgo::ImplicitGemm: implicit_gemm_forward(y, x, w, b, g); break;
    case ConvAlgo::Pointwise: pointwise_forward(y, x, w, b, g); break;
    case ConvAlgo::Depthwise: depthwise_forward(y, x, w, b, g); break;
    default: no_kernel(a, "forward");
  }
}

void backward_input_vk(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  check_dtype(gx, "conv_transpose2d");
  const ConvAlgo a = choose_algo(g, ConvDir::Input, gx.dtype());
  switch (a) {
    case ConvAlgo::ImplicitGemm: implicit_gemm_backward_input(gx, gy, w, g); break;
    case ConvAlgo::Pointwise: pointwise_backward_input(gx, gy, w, g); break;
    case ConvAlgo::Depthwise: depthwise_backward_input(gx, gy, w, g); break;
    default: no_kernel(a, "input-gradient");
  }
}

void backward_weight_vk(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  check_dtype(gw, "conv2d");
  const ConvAlgo a = choose_algo(g, ConvDir::Weight, gw.dtype());
  switch (a) {
    case ConvAlgo::ImplicitGemm: implicit_gemm_backward_weight(gw, x, gy, g); break;
    case ConvAlgo::Depthwise: depthwise_backward_weight(gw, x, gy, g); break;
    default: no_kernel(a, "weight-gradient");
  }
}

}  // namespace

ConvAlgo choose_algo(const ConvGeometry& g, ConvDir dir, Dtype) {
  const std::optional<ConvAlgo> f = forced_conv_algo();
  if (f && can_compute(*f, g, dir)) return *f;
  if (f) check_forced_conv_algo(f, false, g, dir, "vulkan", requirement(*f));
  return rule(g, dir);
}

}  // namespace adept::vk::conv

namespace adept::vk {
ADEPT_REGISTER_KERNEL_SUPPORTING(conv2d_forward_kernel, Vulkan, conv::forward_vk, conv::float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(conv2d_backward_input_kernel, Vulkan, conv::backward_input_vk, conv::float_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(conv2d_backward_weight_kernel, Vulkan, conv::backward_weight_vk, conv::float_dtype)
}  // namespace adept::vk
