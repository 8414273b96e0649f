// The separable 2-d resampling kernel families behind interpolate (nearest, nearest-exact, bilinear,
// bicubic): every output row/column reads a fixed number of input rows/columns ("taps") with weights.
#pragma once
#include <cstdint>
#include <vector>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// The taps of one resampled axis: output position i reads input positions index[i*taps + t] with weights
/// weight[i*taps + t], t < taps (indices already clamped into the input). Weights are computed in the
/// tensor's compute precision (float for float32) and stored exactly as doubles.
struct InterpTaps {
  int64_t taps = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
};

// Tensors passed to these kernels are contiguous and float (one dtype); outputs are freshly allocated and
// fully written by the kernel.

/// out[p, i, j] = sum_a h.weight[i,a] * (sum_b w.weight[j,b] * in[p, h.index[i,a], w.index[j,b]]) for
/// in (P, H, W) and out (P, H_out, W_out) (sums in the order of the taps, starting from tap 0).
ADEPT_DECLARE_KERNEL(interpolate_kernel,
                     void(const Tensor& out, const Tensor& in, const InterpTaps& h, const InterpTaps& w))
/// grad_in (P, H, W) = the gradient of interpolate_kernel for grad_out (P, H_out, W_out).
ADEPT_DECLARE_KERNEL(interpolate_backward_kernel,
                     void(const Tensor& grad_in, const Tensor& grad_out, const InterpTaps& h, const InterpTaps& w))

}  // namespace adept
