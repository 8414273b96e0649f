// Adam and AdamW updates (torch.optim.Adam / AdamW, torch 1.13 single-tensor algorithms).
#include "adept/optim/adam.h"

#include <cmath>

#include <map>

#include "adept/ops.h"
#include "kernels/optim.h"
#include "optim/fused.h"

namespace adept::optim {

namespace {

Options adam_defaults(const std::string& name, const AdamOptions& o, double default_weight_decay) {
  const double weight_decay = o.weight_decay.value_or(default_weight_decay);
  const auto [beta1, beta2] = o.betas;
  ADEPT_CHECK(o.lr >= 0, ValueError, "{}: Invalid learning rate: {}", name, o.lr);
  ADEPT_CHECK(o.eps >= 0, ValueError, "{}: Invalid epsilon value: {}", name, o.eps);
  ADEPT_CHECK(beta1 >= 0 && beta1 < 1, ValueError, "{}: Invalid beta parameter at index 0: {}", name, beta1);
  ADEPT_CHECK(beta2 >= 0 && beta2 < 1, ValueError, "{}: Invalid beta parameter at index 1: {}", name, beta2);
  ADEPT_CHECK(weight_decay >= 0, ValueError, "{}: Invalid weight_decay value: {}", name, weight_decay);
  return {{"lr", o.lr},
          {"betas", std::vector<double>{beta1, beta2}},
          {"eps", o.eps},
          {"weight_decay", weight_decay},
          {"amsgrad", o.amsgrad},
          {"maximize", o.maximize}};
}

}  // namespace

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& options) : Adam("Adam", std::move(groups), options, 0) {}

Adam::Adam(std::string name, std::vector<ParamGroup> groups, const AdamOptions& options, double default_weight_decay)
    : Optimizer(name, std::move(groups), adam_defaults(name, options, default_weight_decay)) {}

AdamW::AdamW(std::vector<ParamGroup> groups, const AdamOptions& options)
    : Adam("AdamW", std::move(groups), options, 1e-2) {}

namespace {

// The whole group in multi-tensor kernel calls (one per distinct step count), when its device has them.
bool step_fused(Optimizer& opt, ParamGroup& group, AdamStep hyper, double beta1, double beta2) {
  std::vector<Tensor> params, grads;
  if (!fusable(group, adam_step_kernel(), params, grads)) return false;
  struct Lists { std::vector<Tensor> p, g, m, v, vmax; };
  std::map<double, Lists> by_step;
  for (size_t i = 0; i < params.size(); ++i) {
    ParamState& s = opt.state(params[i]);
    if (s.empty()) {
      s["step"] = zeros({}, TensorOptions(kFloat32));
      s["exp_avg"] = zeros_like(params[i]);
      s["exp_avg_sq"] = zeros_like(params[i]);
    }
    if (hyper.amsgrad && !s.count("max_exp_avg_sq")) s["max_exp_avg_sq"] = zeros_like(params[i]);
    Tensor& step_t = s.at("step");
    step_t.add_(1);
    Lists& l = by_step[step_t.item<double>()];
    l.p.push_back(params[i]);
    l.g.push_back(grads[i]);
    l.m.push_back(s.at("exp_avg"));
    l.v.push_back(s.at("exp_avg_sq"));
    if (hyper.amsgrad) l.vmax.push_back(s.at("max_exp_avg_sq"));
  }
  for (auto& [step, l] : by_step) {
    hyper.step_size = hyper.lr / (1 - std::pow(beta1, step));
    hyper.bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
    adam_step_kernel().get(l.p[0].device(), opt.name().c_str())(l.p, l.g, l.m, l.v, l.vmax, hyper);
  }
  return true;
}

}  // namespace

void Adam::step_group(ParamGroup& group) {
  const Options& o = group.options;
  const double lr = option_number(o, "lr", name());
  const double eps = option_number(o, "eps", name());
  const double weight_decay = option_number(o, "weight_decay", name());
  const bool amsgrad = option_flag(o, "amsgrad", name());
  const bool maximize = option_flag(o, "maximize", name());
  const std::vector<double> betas = option_numbers(o, "betas", name());
  ADEPT_CHECK(betas.size() == 2, ValueError, "{}: betas must hold 2 numbers, got {}", name(), betas.size());
  const double beta1 = betas[0], beta2 = betas[1];
  const bool decoupled = decoupled_weight_decay();
  if (step_fused(*this, group, {lr, beta1, beta2, eps, weight_decay, 0, 1, decoupled, amsgrad, maximize}, beta1, beta2)) {
    return;
  }
  for (Tensor& p : group.params) {
    Tensor grad = p.grad();
    if (!grad.defined()) continue;
    if (maximize) grad = grad.neg();
    ParamState& s = state(p);
    if (s.empty()) {
      s["step"] = zeros({}, TensorOptions(kFloat32));
      s["exp_avg"] = zeros_like(p);
      s["exp_avg_sq"] = zeros_like(p);
    }
    if (amsgrad && !s.count("max_exp_avg_sq")) s["max_exp_avg_sq"] = zeros_like(p);
    Tensor& step_t = s.at("step");
    step_t.add_(1);
    const double step = step_t.item<double>();

    if (decoupled_weight_decay()) {
      p.mul_(1 - lr * weight_decay);
    } else if (weight_decay != 0) {
      grad = grad.add(p, weight_decay);
    }
    Tensor& exp_avg = s.at("exp_avg");
    Tensor& exp_avg_sq = s.at("exp_avg_sq");
    exp_avg.mul_(beta1).add_(grad, 1 - beta1);
    exp_avg_sq.mul_(beta2).add_(grad.mul(grad), 1 - beta2);

    const double step_size = lr / (1 - std::pow(beta1, step));
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
    Tensor second = exp_avg_sq;
    if (amsgrad) {
      Tensor& max_sq = s.at("max_exp_avg_sq");
      max_sq.copy_(maximum(max_sq, exp_avg_sq));
      second = max_sq;
    }
    Tensor denom = div(second.sqrt(), Scalar(bias_correction2_sqrt)).add_(eps);
    p.add_(exp_avg.div(denom), -step_size);
  }
}

}  // namespace adept::optim
