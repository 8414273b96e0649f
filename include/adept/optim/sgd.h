// SGD: stochastic gradient descent with optional momentum, Nesterov momentum, L2 weight decay
// and maximize (torch.optim.SGD).
#pragma once
#include "adept/optim/optimizer.h"

namespace adept::optim {

/// torch.optim.SGD's arguments. lr has no default in torch: set it.
struct SGDOptions {
  double lr = 0;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
};

/// torch.optim.SGD (docs "SGD" algorithm; torch 1.13 single-tensor update). For each param with
/// grad g: g = -g if maximize; g += weight_decay * p; with momentum, the buffer b = g on the first
/// step, else b = momentum * b + (1 - dampening) * g, and g = g + momentum * b (nesterov) or b;
/// then p -= lr * g. State: "momentum_buffer" (only when momentum != 0).
/// ValueError: lr, momentum or weight_decay < 0; nesterov without momentum > 0 and dampening 0.
class SGD : public Optimizer {
 public:
  SGD(std::vector<ParamGroup> groups, const SGDOptions& options);
  SGD(std::vector<Tensor> params, const SGDOptions& options) : SGD(single_group(std::move(params)), options) {}

 protected:
  void step_group(ParamGroup& group) override;
};

}  // namespace adept::optim
