// Resampling of images and sequences (torch.nn.functional.interpolate): nearest, nearest-exact, (bi)linear,
// bicubic and area modes, forward and backward, with PyTorch's source-index rules.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept {

/// Resizes the spatial dims of `input`: (N, C, L) for modes nearest, nearest-exact, linear, area and
/// (N, C, H, W) for nearest, nearest-exact, bilinear, bicubic, area. Exactly one of `size` (one value per
/// spatial dim, or one for all) and `scale_factor` (likewise) is given; with scale_factor the output size is
/// floor(in * scale). Source positions follow PyTorch (https://pytorch.org/docs/1.13/generated/torch.nn.functional.interpolate.html):
///   - nearest: src = min(floor(dst * s), in - 1); nearest-exact: min(floor((dst + 0.5) * s), in - 1);
///   - linear/bilinear/bicubic: align_corners ? dst * (in - 1) / (out - 1) : (dst + 0.5) * s - 0.5 (clamped
///     at 0 for linear), with taps clamped into the input; bicubic uses Keys' kernel with a = -0.75;
///   - area: adaptive_avg_pool over the output size;
/// where s = 1 / scale_factor when scale_factor is given and recompute_scale_factor is not true, else
/// in / out. Computed in the input's precision (float32 stays float32).
/// Errors (type as PyTorch raises): ValueError for both or neither of size/scale_factor, a size or
/// scale_factor with the wrong number of entries, align_corners with nearest/nearest-exact/area,
/// recompute_scale_factor with size; NotImplementedForDevice (NotImplementedError) for an unknown mode or a
/// rank the mode does not take (e.g. bilinear on 3-d input, 5-d inputs); ShapeError (RuntimeError) for an
/// output or input spatial size below 1 or empty channels; DtypeError for non-float input.
/// Gradients flow to `input`.
Tensor interpolate(const Tensor& input, std::optional<Shape> size = std::nullopt,
                   std::optional<std::vector<double>> scale_factor = std::nullopt, const std::string& mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt);

}  // namespace adept
