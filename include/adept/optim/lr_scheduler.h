// Learning-rate schedulers (torch.optim.lr_scheduler, torch 1.13 semantics): each step() computes
// the next learning rates and writes them into the optimizer's param groups ("lr" option).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "adept/optim/optimizer.h"

namespace adept::optim {

/// Base of the schedulers (torch.optim.lr_scheduler._LRScheduler). Construction with
/// last_epoch = -1 sets each group's "initial_lr" to its "lr" where unset; with another
/// last_epoch (resuming) every group must have "initial_lr" (ValueError otherwise). base_lrs are
/// the groups' initial_lr. Construction performs the first step (epoch 0), as torch.
/// The scheduler refers to the optimizer, which must outlive it.
class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances last_epoch by one and sets the groups' lr from the scheduler's recursive (chainable)
  /// rule. With `epoch` (deprecated in torch): last_epoch = epoch and the closed form, where the
  /// scheduler has one.
  virtual void step(std::optional<int64_t> epoch = std::nullopt);
  /// The lrs set by the last step, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  int64_t last_epoch() const { return last_epoch_; }
  Optimizer& optimizer() const { return optimizer_; }

  /// torch's state_dict keys: base_lrs, last_epoch, _step_count, _last_lr, verbose,
  /// _get_lr_called_within_step, and the scheduler's own arguments (gamma, T_max...).
  virtual Options state_dict() const;
  /// Restores every key state_dict() writes that `state` has (unknown keys are ignored).
  virtual void load_state_dict(const Options& state);

 protected:
  LRScheduler(Optimizer& optimizer, int64_t last_epoch);
  /// Resets the step count and performs the first step; the most derived constructor calls it.
  void initial_step();
  /// The next lrs from the groups' current lrs (torch's get_lr).
  virtual std::vector<double> get_lr() const = 0;
  /// The lrs at last_epoch in closed form (torch's _get_closed_form_lr), if the scheduler has one.
  virtual std::optional<std::vector<double>> closed_form_lr() const { return std::nullopt; }
  /// The scheduler's own arguments as state entries (read back by load_args).
  virtual void save_args(Options& state) const {}
  virtual void load_args(const Options& state) {}
  std::vector<double> group_lrs() const;
  void set_lrs(const std::vector<double>& lrs);

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_;
  int64_t step_count_ = 0;
  std::vector<double> last_lr_;

  friend class SequentialLR;
};

/// lr = base_lr * lr_lambda(epoch); one function for all groups or one per group
/// (ValueError when the count differs from the number of groups). torch.optim.lr_scheduler.LambdaLR.
class LambdaLR : public LRScheduler {
 public:
  using Lambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;

 private:
  std::vector<Lambda> lambdas_;
};

/// Multiplies lr by gamma every step_size epochs. torch.optim.lr_scheduler.StepLR.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_args(Options& state) const override;
  void load_args(const Options& state) override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// Multiplies lr by gamma at each milestone epoch (a milestone listed k times multiplies by
/// gamma^k). torch.optim.lr_scheduler.MultiStepLR.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_args(Options& state) const override;
  void load_args(const Options& state) override;

 private:
  std::vector<int64_t> milestones_;  // sorted
  double gamma_;
};

/// Multiplies lr by factor until epoch total_iters, then restores it. ValueError unless
/// 0 <= factor <= 1. torch.optim.lr_scheduler.ConstantLR.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_args(Options& state) const override;
  void load_args(const Options& state) override;

 private:
  double factor_;
  int64_t total_iters_;
};

/// Scales lr linearly from start_factor * lr to end_factor * lr over total_iters epochs.
/// ValueError unless 0 < start_factor <= 1 and 0 <= end_factor <= 1. torch.optim.lr_scheduler.LinearLR.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5,
           int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_args(Options& state) const override;
  void load_args(const Options& state) override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

/// Multiplies lr by gamma every epoch. torch.optim.lr_scheduler.ExponentialLR.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_args(Options& state) const override;
  void load_args(const Options& state) override;

 private:
  double gamma_;
};

/// Cosine annealing from base_lr to eta_min over T_max epochs (SGDR without restarts: Loshchilov &
/// Hutter, ICLR 2017): closed form eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2;
/// step() uses torch's recursive form, which also follows external changes of lr.
/// torch.optim.lr_scheduler.CosineAnnealingLR.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() const override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  void save_args(Options& state) const override;
  void load_args(const Options& state) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

/// Runs `schedulers` one after another, switching at the `milestones` epochs (the next scheduler
/// restarts at its epoch 0), e.g. LinearLR warmup then CosineAnnealingLR.
/// ValueError when a scheduler belongs to another optimizer or milestones.size() !=
/// schedulers.size() - 1. torch.optim.lr_scheduler.SequentialLR. step() takes no epoch.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1);
  void step(std::optional<int64_t> epoch = std::nullopt) override;
  /// Own entries plus each scheduler's state under "_schedulers.<i>.<key>".
  Options state_dict() const override;
  void load_state_dict(const Options& state) override;

 protected:
  std::vector<double> get_lr() const override { return last_lr_; }

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

}  // namespace adept::optim
