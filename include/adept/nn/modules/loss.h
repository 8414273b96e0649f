// Loss layers: modules with a two-tensor forward(input, target) over nn::functional's losses
// (torch.nn.BCEWithLogitsLoss, BCELoss, CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss).
// `reduction` is "mean", "sum" or "none" (ValueError at forward otherwise); shapes and errors as the
// functional forms. Class weights are registered as buffers named as in torch (weight, pos_weight),
// so they follow to() and appear in state_dict when given.
#pragma once
#include <string>

#include "adept/nn/module.h"

namespace adept::nn {

/// Base of the losses: forward(input, target). The single-tensor forward raises.
class Loss : public Module {
 public:
  Loss(std::string type_name, std::string reduction) : Module(std::move(type_name)), reduction(std::move(reduction)) {}
  using Module::forward;
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  std::string reduction;
};

class BCEWithLogitsLoss : public Loss {
 public:
  using Loss::forward;
  explicit BCEWithLogitsLoss(const Tensor& weight = {}, std::string reduction = "mean", const Tensor& pos_weight = {});
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class BCELoss : public Loss {
 public:
  using Loss::forward;
  explicit BCELoss(const Tensor& weight = {}, std::string reduction = "mean");
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class CrossEntropyLoss : public Loss {
 public:
  using Loss::forward;
  explicit CrossEntropyLoss(const Tensor& weight = {}, int64_t ignore_index = -100, std::string reduction = "mean",
                            double label_smoothing = 0.0);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  int64_t ignore_index;
  double label_smoothing;
};

class NLLLoss : public Loss {
 public:
  using Loss::forward;
  explicit NLLLoss(const Tensor& weight = {}, int64_t ignore_index = -100, std::string reduction = "mean");
  Tensor forward(const Tensor& input, const Tensor& target) override;
  int64_t ignore_index;
};

class MSELoss : public Loss {
 public:
  using Loss::forward;
  explicit MSELoss(std::string reduction = "mean") : Loss("MSELoss", std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class L1Loss : public Loss {
 public:
  using Loss::forward;
  explicit L1Loss(std::string reduction = "mean") : Loss("L1Loss", std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

class SmoothL1Loss : public Loss {
 public:
  using Loss::forward;
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0)
      : Loss("SmoothL1Loss", std::move(reduction)), beta(beta) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
  double beta;
};

}  // namespace adept::nn
