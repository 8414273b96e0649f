// 2-d pooling (torch.nn.functional.max_pool2d, avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d,
// max_unpool2d): forward and backward, with PyTorch's window, padding, ceil_mode and NaN rules.
#pragma once
#include <cstdint>
#include <optional>
#include <tuple>

#include "adept/ops/options.h"
#include "adept/tensor.h"

namespace adept {

// Common to all pooling ops:
//   - input (N, C, H, W) or unbatched (C, H, W); the result keeps the batch-ness. An empty batch (N = 0)
//     is allowed; empty C/H/W are a ShapeError (adaptive_avg_pool2d allows C = 0, like PyTorch).
//   - float32, float64, float16, bfloat16 (16-bit floats accumulate in float32); other dtypes: DtypeError.
//   - output size per axis (fixed windows): floor_or_ceil((H + 2 pad - dilation (k - 1) - 1) / stride) + 1,
//     where with ceil_mode a last window that would start beyond the input plus left padding is dropped.
//   - ShapeError (RuntimeError in Python, as PyTorch) for: kernel/stride/dilation < 1, padding < 0,
//     padding > kernel / 2, an output size below 1, a wrong rank.
//   - Any strides are accepted; results are contiguous. Gradients flow to `input` (the backward functions
//     are differentiable too). Devices without the CPU kernels raise NotImplementedForDevice naming the op.

/// Max over windows of kernel_size (dilated by `dilation`, stride defaulting to kernel_size, implicit
/// -inf padding). NaN propagates: a window holding NaN yields NaN.
/// https://pytorch.org/docs/1.13/generated/torch.nn.functional.max_pool2d.html
Tensor max_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride = std::nullopt,
                  IntPair padding = 0, IntPair dilation = 1, bool ceil_mode = false);

/// max_pool2d and the int64 indices of the maxima, flat positions h * W + w within each (H, W) plane (the
/// indices max_unpool2d takes). Ties pick the first maximum in row-major order, NaN the last NaN. A dilated
/// window with no tap inside the input (e.g. kernel 2, dilation 3, padding 1 on a 2-pixel input) gives -inf
/// and index -1 (PyTorch returns an out-of-plane index there, and its backward writes out of bounds).
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntPair kernel_size,
                                                   std::optional<IntPair> stride = std::nullopt,
                                                   IntPair padding = 0, IntPair dilation = 1,
                                                   bool ceil_mode = false);

/// Mean over windows of kernel_size (stride defaulting to kernel_size, zero padding). The divisor is
/// `divisor_override` when given (ShapeError when 0), else the window size counting padded positions
/// (count_include_pad) or only those inside the input. With ceil_mode the windows overhanging the bottom /
/// right edge are clipped to the input plus padding.
/// https://pytorch.org/docs/1.13/generated/torch.nn.functional.avg_pool2d.html
Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride = std::nullopt,
                  IntPair padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);

/// Mean over adaptive windows: output row i covers input rows [floor(i H / H_out), ceil((i+1) H / H_out)),
/// the same for columns. (N, C, H, W) -> (N, C, H_out, W_out); output_size entries >= 0 (ShapeError
/// otherwise; 0 gives an empty result). https://pytorch.org/docs/1.13/generated/torch.nn.functional.adaptive_avg_pool2d.html
Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size);

/// Max over the adaptive windows of adaptive_avg_pool2d (NaN propagates like max_pool2d).
/// https://pytorch.org/docs/1.13/generated/torch.nn.functional.adaptive_max_pool2d.html
Tensor adaptive_max_pool2d(const Tensor& input, IntPair output_size);
/// adaptive_max_pool2d and the flat h * W + w indices of the maxima (int64).
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, IntPair output_size);

/// The partial inverse of max_pool2d: a zero tensor (N, C, H_out, W_out) with input[n, c, i] written at
/// flat position indices[n, c, i] of its plane. The default output size is
/// (H - 1) stride - 2 padding + kernel_size per axis; `output_size` (2 values, or the full shape whose last
/// two are used) may differ from it by less than stride (ValueError otherwise). indices must be int64
/// (DtypeError) with input's shape (ShapeError) and lie in [0, H_out W_out) (adept::Error, RuntimeError in
/// Python like PyTorch). Duplicate indices: the last write wins. Gradient: input's gradient gathers the
/// output gradient at `indices`.
/// https://pytorch.org/docs/1.13/generated/torch.nn.functional.max_unpool2d.html
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, IntPair kernel_size,
                    std::optional<IntPair> stride = std::nullopt, IntPair padding = 0,
                    std::optional<Shape> output_size = std::nullopt);

}  // namespace adept
