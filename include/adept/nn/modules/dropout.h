// Dropout layer (torch.nn.Dropout).
#pragma once
#include "adept/nn/module.h"

namespace adept::nn {

/// functional::dropout(input, p, is_training()): identity in eval mode. ValueError unless 0 <= p <= 1
/// (at construction, as torch). `inplace` is accepted for torch compatibility and shown by repr; the
/// result is always computed out of place.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5, bool inplace = false);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  double p;
  bool inplace;
};

}  // namespace adept::nn
