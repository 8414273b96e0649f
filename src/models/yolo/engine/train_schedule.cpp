// The optimizer and lr schedule of YOLO11 training (train_schedule.h).
#include "models/yolo/engine/train_schedule.h"

#include <cmath>
#include <numbers>

#include <spdlog/spdlog.h>

#include "adept/errors.h"
#include "adept/nn/modules/batchnorm.h"
#include "adept/optim/adam.h"
#include "adept/optim/sgd.h"

namespace adept::models::yolo::detail {

void check_optimizer_name(const std::string& name) {
  ADEPT_CHECK(name == "auto" || name == "SGD" || name == "Adam" || name == "AdamW", ValueError,
              "YOLO option optimizer='{}' is not supported: use auto, SGD, Adam or AdamW", name);
}

BuiltOptimizer build_optimizer(nn::Module& model, const Config& config, int64_t nc, int64_t iterations,
                               double weight_decay) {
  std::vector<Tensor> biases, weights, bn_weights;
  for (const auto& [prefix, module] : model.named_modules()) {
    const bool is_bn = dynamic_cast<nn::BatchNorm*>(module.get()) != nullptr;
    for (const auto& [name, p] : module->named_parameters("", false)) {
      if (!p.requires_grad()) continue;  // the DFL's fixed projection
      if (name.find("bias") != std::string::npos) biases.push_back(p);
      else if (is_bn) bn_weights.push_back(p);
      else weights.push_back(p);
    }
  }
  std::string name = config.str("optimizer");
  check_optimizer_name(name);
  double lr = config.number("lr0"), momentum = config.number("momentum");
  double warmup_bias_lr = config.number("warmup_bias_lr");
  if (name == "auto") {
    const double lr_fit = std::round(0.002 * 5 / (4 + static_cast<double>(nc)) * 1e6) / 1e6;
    name = iterations > 10000 ? "SGD" : "AdamW";
    lr = iterations > 10000 ? 0.01 : lr_fit;
    momentum = 0.9;
    warmup_bias_lr = 0.0;
    spdlog::info("optimizer: 'optimizer=auto' chose {}(lr={}, momentum={}) for {} iterations (lr0 and momentum "
                 "ignored)",
                 name, lr, momentum, iterations);
  }
  auto group = [](std::vector<Tensor> params, double decay) {
    optim::ParamGroup g;
    g.params = std::move(params);
    g.options["weight_decay"] = decay;
    return g;
  };
  std::vector<optim::ParamGroup> groups;
  groups.push_back(group(std::move(biases), 0.0));
  groups.push_back(group(std::move(weights), weight_decay));
  groups.push_back(group(std::move(bn_weights), 0.0));

  BuiltOptimizer out;
  out.name = name;
  out.warmup_bias_lr = warmup_bias_lr;
  if (name == "SGD") {
    optim::SGDOptions o;
    o.lr = lr;
    o.momentum = momentum;
    o.nesterov = true;
    out.optimizer = std::make_unique<optim::SGD>(std::move(groups), o);
  } else {  // Adam or AdamW (check_optimizer_name)
    optim::AdamOptions o;
    o.lr = lr;
    o.betas = {momentum, 0.999};
    o.weight_decay = 0.0;
    if (name == "Adam") out.optimizer = std::make_unique<optim::Adam>(std::move(groups), o);
    else out.optimizer = std::make_unique<optim::AdamW>(std::move(groups), o);
  }
  spdlog::info("optimizer: {} with parameter groups: {} biases (no decay), {} weights (decay {:g}), {} BatchNorm "
               "weights (no decay)",
               name, out.optimizer->param_groups()[0].params.size(), out.optimizer->param_groups()[1].params.size(),
               weight_decay, out.optimizer->param_groups()[2].params.size());
  return out;
}

std::function<double(int64_t)> lr_factor(const Config& config) {
  const double lrf = config.number("lrf");
  const double epochs = static_cast<double>(config.integer("epochs"));
  if (config.flag("cos_lr"))
    return [=](int64_t e) { return (1 - std::cos(std::numbers::pi * static_cast<double>(e) / epochs)) / 2 * (lrf - 1) + 1; };
  return [=](int64_t e) { return (1 - static_cast<double>(e) / epochs) * (1 - lrf) + lrf; };
}

double interp(double x, double x0, double x1, double y0, double y1) {
  if (x <= x0) return y0;
  if (x >= x1) return y1;
  return y0 + (x - x0) / (x1 - x0) * (y1 - y0);
}

int64_t round_half_even(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

}  // namespace adept::models::yolo::detail
