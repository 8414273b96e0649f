// LayerNorm and GroupNorm layers (torch.nn.LayerNorm, torch.nn.GroupNorm).
#pragma once
#include "adept/nn/module.h"

namespace adept::nn {

/// functional::layer_norm over the trailing normalized_shape dims; weight (ones) and bias (zeros)
/// shaped normalized_shape when elementwise_affine. Input (*, normalized_shape) -> same shape.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();

  Shape normalized_shape;
  double eps;
  bool elementwise_affine;
};

/// functional::group_norm with num_groups groups; weight (ones) and bias (zeros) of num_channels
/// elements when affine. Input (N, C, *) -> same shape. ValueError when num_channels is not
/// divisible by num_groups (at construction, as torch).
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t num_groups, num_channels;
  double eps;
  bool affine;
};

}  // namespace adept::nn
