// Flatten layer (torch.nn.Flatten).
#pragma once
#include "adept/nn/module.h"

namespace adept::nn {

/// input.flatten(start_dim, end_dim): (N, C, H, W) -> (N, C*H*W) with the defaults. IndexError for
/// dims out of range (at forward).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  int64_t start_dim, end_dim;
};

}  // namespace adept::nn
