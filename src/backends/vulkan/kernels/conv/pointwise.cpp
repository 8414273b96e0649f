// 1x1 convolutions (stride 1, no padding) as GEMMs over channels on bmm_kernel, one batched product per
// group on strided views (no copies): y[n] = W x[n] and gx[n] = W^T gy[n], W broadcast over the batch.
// Bias and SiLU follow as pointwise passes. The weight gradient, a sum over the batch and the pixels, is
// implicit_gemm's (its split-K sums in float32 for half inputs).
#include "backends/vulkan/kernels/conv/conv.h"
#include "kernels/linalg.h"
#include "kernels/pointwise.h"
#include "kernels/tensor_view.h"

namespace adept::vk::conv {
namespace {

// (N, c, HW) view of channels [c0, c0 + c) of an NCHW tensor with `channels` channels of HW pixels.
Tensor planes(const Tensor& t, int64_t channels, int64_t c0, int64_t c, int64_t HW) {
  return restrided(t, {t.size(0), c, HW}, {channels * HW, HW, 1}, t.storage_offset() + c0 * HW);
}

}  // namespace

void pointwise_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g) {
  const int64_t HW = g.H * g.W, ci = g.cin_g(), co = g.cout_g();
  const Device dev = y.device();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    const Tensor wg = restrided(w, {g.N, co, ci}, {0, ci, 1}, w.storage_offset() + gi * co * ci);
    bmm_kernel().get(dev, "conv2d")(planes(y, g.C_out, gi * co, co, HW), wg, planes(x, g.C_in, gi * ci, ci, HW));
  }
  if (bias.defined()) {
    binary_kernel().get(dev, "conv2d")(BinaryOp::Add, y, y,
                                       restrided(bias, y.sizes(), {0, 1, 0, 0}, bias.storage_offset()));
  }
  if (g.silu) unary_kernel().get(dev, "conv2d")(UnaryOp::Silu, y, y, UnaryParams{});
}

void pointwise_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  const int64_t HW = g.H * g.W, ci = g.cin_g(), co = g.cout_g();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    const Tensor wt = restrided(w, {g.N, ci, co}, {0, 1, ci}, w.storage_offset() + gi * co * ci);
    bmm_kernel().get(gx.device(), "conv2d")(planes(gx, g.C_in, gi * ci, ci, HW), wt,
                                            planes(gy, g.C_out, gi * co, co, HW));
  }
}

}  // namespace adept::vk::conv
