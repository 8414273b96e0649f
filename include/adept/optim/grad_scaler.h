// GradScaler: dynamic loss scaling for mixed-precision training (torch.amp.GradScaler; Micikevicius et al., "Mixed
// Precision Training", ICLR 2018). The loss is multiplied by a scale S before backward so small float16 gradients
// do not flush to zero; before the optimizer step the gradients are divided by S and checked for inf / NaN. A step
// with a non-finite gradient is skipped and S is multiplied by backoff_factor; after growth_interval finite steps
// in a row S is multiplied by growth_factor. Use:
//   scaler.scale(loss).backward();
//   scaler.unscale_(opt);  // optional, e.g. before clipping
//   scaler.step(opt);
//   scaler.update();
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "adept/optim/optimizer.h"
#include "adept/tensor.h"

namespace adept::optim {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;   // must be > 1
  double backoff_factor = 0.5;  // must be < 1
  int64_t growth_interval = 2000;
  bool enabled = true;  // disabled: scale() returns its input, step() is optimizer.step()
};

class GradScaler {
 public:
  /// ValueError for growth_factor <= 1, backoff_factor >= 1 (or <= 0), a non-positive init_scale or
  /// growth_interval.
  explicit GradScaler(const GradScalerOptions& options = {});

  /// outputs * S (the loss before backward), of outputs' dtype (integer outputs become float) and device.
  Tensor scale(const Tensor& outputs) const;
  /// Divides the gradients of `optimizer`'s parameters by S in place and records whether any is inf or NaN. Error
  /// when called twice for one optimizer before update(), or after step(); ValueError for a float16 gradient (its
  /// master weights should be float32).
  void unscale_(Optimizer& optimizer);
  /// Unscales (unless unscale_ ran) and runs optimizer.step() when every gradient is finite; returns whether it
  /// stepped. Reads one flag per device back to the host. Error when called twice for one optimizer before
  /// update(), or when none of its parameters has a gradient.
  bool step(Optimizer& optimizer);
  /// step() in two halves, for wrappers that call the optimizer's step themselves (Python, where
  /// optimizer.step may be overridden): step_begin unscales (unless unscale_ ran) and returns whether the
  /// optimizer should step; step_end records that step() ran. Errors as step().
  bool step_begin(Optimizer& optimizer);
  void step_end(Optimizer& optimizer);
  /// Adjusts S from the steps since the last update (backoff when one found inf / NaN, growth after
  /// growth_interval finite ones) or sets it to `new_scale`. Error when no step or unscale_ was recorded since the
  /// last update.
  void update(std::optional<double> new_scale = std::nullopt);

  /// S (1.0 when disabled). S is float32, as PyTorch keeps it.
  double get_scale() const { return enabled_ ? scale_ : 1.0; }
  double get_growth_factor() const { return growth_factor_; }
  void set_growth_factor(double v);
  double get_backoff_factor() const { return backoff_factor_; }
  void set_backoff_factor(double v);
  int64_t get_growth_interval() const { return growth_interval_; }
  void set_growth_interval(int64_t v);
  /// Finite steps since the last growth or backoff.
  int64_t get_growth_tracker() const { return growth_tracker_; }
  bool is_enabled() const { return enabled_; }
  /// torch's keys: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker (empty when disabled).
  Options state_dict() const;
  /// ValueError for an empty dict (saved from a disabled scaler) or a missing key; ignored when disabled.
  void load_state_dict(const Options& state);

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct PerOptimizer {
    Stage stage = Stage::Ready;
    std::vector<Tensor> found_inf;   // one flag per (device, dtype) of the gradients
    std::optional<bool> found_host;  // their verdict once read back
  };
  bool any_found(PerOptimizer& st);  // reads the flags back once

  float scale_;
  double growth_factor_, backoff_factor_;
  int64_t growth_interval_, growth_tracker_ = 0;
  bool enabled_;
  std::unordered_map<const Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace adept::optim
