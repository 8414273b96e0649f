// The optimizer and learning-rate schedule of YOLO11 training (../shared/docs/yolo11.md 5.2-5.3):
// parameter groups, the `auto` rule, the per-epoch lr factor and the warmup ramps.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "adept/models/yolo/config.h"
#include "adept/nn/module.h"
#include "adept/optim/optimizer.h"

namespace adept::models::yolo::detail {

/// The optimizer a run uses and the settings the `auto` rule may have changed.
struct BuiltOptimizer {
  std::unique_ptr<optim::Optimizer> optimizer;
  std::string name;        ///< "SGD", "Adam" or "AdamW"
  double warmup_bias_lr;   ///< 0 under `auto`, else the option
};

/// ValueError unless `name` is an optimizer build_optimizer knows: auto, SGD, Adam or AdamW.
void check_optimizer_name(const std::string& name);

/// Groups the trainable parameters of `model` into 0: biases (no decay), 1: other weights
/// (decay `weight_decay`), 2: BatchNorm weights (no decay), and builds the optimizer the options
/// name (`auto` chosen from `iterations` and nc). ValueError for an unknown optimizer name.
BuiltOptimizer build_optimizer(nn::Module& model, const Config& config, int64_t nc, int64_t iterations,
                               double weight_decay);

/// The per-epoch lr factor lf(e): linear (1 - e / E)(1 - lrf) + lrf, or with cos_lr
/// ((1 - cos(pi e / E)) / 2)(lrf - 1) + 1.
std::function<double(int64_t)> lr_factor(const Config& config);

/// numpy.interp(x, [x0, x1], [y0, y1]) for x0 < x1 (clamped outside).
double interp(double x, double x0, double x1, double y0, double y1);

/// Python's round() (half to even), as Ultralytics rounds accumulate and the warmup length.
int64_t round_half_even(double x);

}  // namespace adept::models::yolo::detail
