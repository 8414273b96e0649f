// 1x1 convolutions (stride 1, no padding) as GEMMs over channels on bmm_kernel, one batched product per
// group on strided views (no copies): y[n] = W x[n] and gx[n] = W^T gy[n], W broadcast over the batch.
// Bias and SiLU follow as pointwise passes. The weight gradient, a sum over the batch and the pixels, is
// implicit_gemm's (its split-K sums in float32 for half inputs).
#include <algorithm>

#include "backends/vulkan/kernels/conv/conv.h"
#include "kernels/linalg.h"
#include "kernels/pointwise.h"
#include "kernels/tensor_view.h"

namespace adept::vk::conv {
namespace {

// One dispatch's batch at most (the batched GEMM's grid limit).
constexpr int64_t kMaxBatch = 65535;

// (n, c, HW) view of images [n0, n0 + n) and channels [c0, c0 + c) of an NCHW tensor with `channels`
// channels of HW pixels.
Tensor planes(const Tensor& t, int64_t n0, int64_t n, int64_t channels, int64_t c0, int64_t c, int64_t HW) {
  return restrided(t, {n, c, HW}, {channels * HW, HW, 1}, t.storage_offset() + (n0 * channels + c0) * HW);
}

// out[n] = W_g op in[n] for every group and image, W_g the (rows, cols) weight view of group gi given by
// `weight_of(gi, n)` (broadcast over n images).
template <class WeightOf>
void grouped_gemm(const Tensor& out, int64_t out_channels, int64_t out_g, const Tensor& in, int64_t in_channels,
                  int64_t in_g, const ConvGeometry& g, WeightOf weight_of) {
  const int64_t HW = g.H * g.W;
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    for (int64_t n0 = 0; n0 < g.N; n0 += kMaxBatch) {
      const int64_t n = std::min(kMaxBatch, g.N - n0);
      bmm_kernel().get(out.device(), "conv2d")(planes(out, n0, n, out_channels, gi * out_g, out_g, HW), weight_of(gi, n),
                                               planes(in, n0, n, in_channels, gi * in_g, in_g, HW));
    }
  }
}

}  // namespace

void pointwise_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g) {
  const int64_t ci = g.cin_g(), co = g.cout_g();
  const Device dev = y.device();
  grouped_gemm(y, g.C_out, co, x, g.C_in, ci, g, [&](int64_t gi, int64_t n) {
    return restrided(w, {n, co, ci}, {0, ci, 1}, w.storage_offset() + gi * co * ci);
  });
  if (bias.defined()) {
    binary_kernel().get(dev, "conv2d")(BinaryOp::Add, y, y,
                                       restrided(bias, y.sizes(), {0, 1, 0, 0}, bias.storage_offset()));
  }
  if (g.silu) unary_kernel().get(dev, "conv2d")(UnaryOp::Silu, y, y, UnaryParams{});
}

void pointwise_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  const int64_t ci = g.cin_g(), co = g.cout_g();
  grouped_gemm(gx, g.C_in, ci, gy, g.C_out, co, g, [&](int64_t gi, int64_t n) {
    return restrided(w, {n, ci, co}, {0, 1, ci}, w.storage_offset() + gi * co * ci);
  });
}

}  // namespace adept::vk::conv
