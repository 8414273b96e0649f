// Upsampling layer (torch.nn.Upsample) over functional::interpolate.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "adept/nn/module.h"

namespace adept::nn {

/// Resizes the spatial dims with functional::interpolate(input, size, scale_factor, mode,
/// align_corners, recompute_scale_factor). `size` / `scale_factor` hold one value (all spatial dims)
/// or one per dim; `*_is_tuple` records whether they were given as a tuple (for repr, as torch).
/// Errors (both or neither of size/scale_factor, bad mode ...) as interpolate, at forward.
class Upsample : public Module {
 public:
  Upsample(std::optional<Shape> size = std::nullopt, std::optional<std::vector<double>> scale_factor = std::nullopt,
           std::string mode = "nearest", std::optional<bool> align_corners = std::nullopt,
           std::optional<bool> recompute_scale_factor = std::nullopt);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  std::optional<Shape> size;
  std::optional<std::vector<double>> scale_factor;
  std::string mode;
  std::optional<bool> align_corners, recompute_scale_factor;
  bool size_is_tuple = false, scale_factor_is_tuple = false;
};

}  // namespace adept::nn
