// ModelEMA: an exponential moving average of a model's weights, with the warm-up decay of
// Ultralytics (ultralytics/utils/torch_utils.py ModelEMA, after rwightman's timm ModelEmaV2).
#pragma once
#include <cstdint>

#include "adept/nn/module.h"

namespace adept::optim {

/// Holds averaged copies of a module's state_dict entries (parameters and persistent buffers).
/// After each optimizer step, update(model) increments `updates` and, with
/// d = decay * (1 - exp(-updates / tau)), sets v = d * v + (1 - d) * model_v for floating-point
/// entries; other entries (integer buffers such as num_batches_tracked) are copied (Ultralytics
/// leaves them at their initial value). The ramp makes early averages follow the model closely.
class ModelEMA {
 public:
  /// Starts from a copy of model.state_dict(). `updates` > 0 resumes a run.
  explicit ModelEMA(const nn::Module& model, double decay = 0.9999, double tau = 2000, int64_t updates = 0);
  /// The same from a state dict (names as the model's).
  explicit ModelEMA(const nn::StateDict& model_state, double decay = 0.9999, double tau = 2000, int64_t updates = 0);

  /// The decay used at update number `updates`: decay * (1 - exp(-updates / tau)).
  double decay_at(int64_t updates) const;
  /// One EMA update from the model's current weights (no-grad). ValueError when the model lacks an
  /// entry of the average or an entry's shape differs.
  void update(const nn::Module& model);
  void update(const nn::StateDict& model_state);

  /// The averaged tensors by the model's names (owned by the EMA; copy before modifying).
  const nn::StateDict& state_dict() const { return state_; }
  /// Writes the averaged weights into `model` (load_state_dict, strict).
  void copy_to(nn::Module& model) const;
  /// Replaces the averages (copies of `state`) and the update counter, e.g. from a checkpoint.
  void load_state_dict(const nn::StateDict& state, int64_t updates);

  int64_t updates() const { return updates_; }
  double decay() const { return decay_; }
  double tau() const { return tau_; }

 private:
  nn::StateDict state_;
  double decay_, tau_;
  int64_t updates_;
};

}  // namespace adept::optim
