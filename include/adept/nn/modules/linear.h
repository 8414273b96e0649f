// Identity and Linear layers (torch.nn.Identity, torch.nn.Linear).
#pragma once
#include "adept/nn/module.h"

namespace adept::nn {

/// Returns its input unchanged (torch.nn.Identity; constructor arguments are ignored there).
class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& input) override { return input; }
};

/// y = x W^T + b (torch.nn.Linear). Parameters: weight (out_features, in_features), bias
/// (out_features) unless bias=false. Input (*, in_features) -> (*, out_features). Default init as
/// torch's reset_parameters: weight and bias ~ U(-1/sqrt(in_features), 1/sqrt(in_features))
/// (= kaiming_uniform_(a=sqrt(5)) for the weight), from adept's default generator.
/// ValueError for negative feature counts; forward errors as functional::linear.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// Re-draws weight and bias with the default initialisation.
  void reset_parameters();

  int64_t in_features, out_features;
};

}  // namespace adept::nn
