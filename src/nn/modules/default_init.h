// The default parameter initialisation of torch's Linear/Conv layers (reset_parameters), through
// nn::init and so drawn from adept's default generator (manual_seed reproduces it).
#pragma once
#include <cmath>

#include "adept/nn/init.h"

namespace adept::nn::detail {

/// weight: kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)); bias (if defined):
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with the weight's fan_in (nothing drawn when fan_in is 0).
inline void reset_weight_and_bias(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
  if (fan_in <= 0) return;
  double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  init::uniform_(bias, -bound, bound);
}

}  // namespace adept::nn::detail
