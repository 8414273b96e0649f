// Adam (L2 weight decay folded into the gradient) and AdamW (decoupled weight decay),
// torch.optim.Adam / torch.optim.AdamW.
#pragma once
#include <optional>
#include <utility>

#include "adept/optim/optimizer.h"

namespace adept::optim {

/// Arguments of torch.optim.Adam / AdamW. weight_decay unset means the class default: 0 for Adam,
/// 1e-2 for AdamW.
struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  std::optional<double> weight_decay;
  bool amsgrad = false;
  bool maximize = false;
};

/// torch.optim.Adam (Kingma & Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015; AMSGrad:
/// Reddi et al., ICLR 2018; torch 1.13 single-tensor update). Per param with grad g, t = step + 1:
/// g = -g if maximize; g += weight_decay * p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
/// v_max = max(v_max, v) with amsgrad (then used for v);
/// p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
/// State: "step" (0-d float32 tensor, as torch), "exp_avg", "exp_avg_sq", "max_exp_avg_sq" (amsgrad).
/// ValueError: lr < 0, eps < 0, a beta outside [0, 1), weight_decay < 0.
class Adam : public Optimizer {
 public:
  Adam(std::vector<ParamGroup> groups, const AdamOptions& options = {});
  Adam(std::vector<Tensor> params, const AdamOptions& options = {}) : Adam(single_group(std::move(params)), options) {}

 protected:
  Adam(std::string name, std::vector<ParamGroup> groups, const AdamOptions& options, double default_weight_decay);
  void step_group(ParamGroup& group) override;
  std::vector<std::string> required_state_keys() const override { return {"step", "exp_avg", "exp_avg_sq"}; }
  /// Whether weight decay is decoupled (AdamW: p *= 1 - lr * weight_decay before the update).
  virtual bool decoupled_weight_decay() const { return false; }
};

/// torch.optim.AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", ICLR 2019):
/// Adam with the update p *= 1 - lr * weight_decay applied before the moment updates instead of the
/// L2 gradient term. Same state and errors as Adam.
class AdamW : public Adam {
 public:
  AdamW(std::vector<ParamGroup> groups, const AdamOptions& options = {});
  AdamW(std::vector<Tensor> params, const AdamOptions& options = {})
      : AdamW(single_group(std::move(params)), options) {}

 protected:
  bool decoupled_weight_decay() const override { return true; }
};

}  // namespace adept::optim
