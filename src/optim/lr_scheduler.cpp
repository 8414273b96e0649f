// Learning-rate schedulers (torch.optim.lr_scheduler, torch 1.13 recursive and closed forms).
#include "adept/optim/lr_scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace adept::optim {

namespace {

int64_t option_int(const Options& s, const std::string& key, const std::string& what) {
  return static_cast<int64_t>(option_number(s, key, what));
}

std::vector<int64_t> to_ints(const std::vector<double>& v) {
  std::vector<int64_t> out;
  for (double x : v) out.push_back(static_cast<int64_t>(x));
  return out;
}

std::vector<double> to_doubles(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

// ---- base ----

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch) : optimizer_(optimizer), last_epoch_(last_epoch) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    Options& o = groups[i].options;
    if (last_epoch == -1) {
      if (!o.count("initial_lr")) o["initial_lr"] = option_number(o, "lr", "LRScheduler");
    } else {
      ADEPT_CHECK(o.count("initial_lr"), ValueError,
                  "LRScheduler: param 'initial_lr' is not specified in param_groups[{}] when resuming an optimizer",
                  i);
    }
    base_lrs_.push_back(option_number(o, "initial_lr", "LRScheduler"));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const ParamGroup& g : optimizer_.param_groups()) lrs.push_back(option_number(g.options, "lr", "LRScheduler"));
  return lrs;
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  ADEPT_CHECK(lrs.size() == groups.size(), ValueError, "LRScheduler: {} lrs for {} param groups", lrs.size(),
              groups.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options["lr"] = lrs[i];
  last_lr_ = lrs;
}

void LRScheduler::step(std::optional<int64_t> epoch) {
  ++step_count_;
  if (!epoch) {
    ++last_epoch_;
    set_lrs(get_lr());
  } else {
    last_epoch_ = *epoch;
    auto closed = closed_form_lr();
    set_lrs(closed ? *closed : get_lr());
  }
}

Options LRScheduler::state_dict() const {
  Options s{{"base_lrs", base_lrs_},
            {"last_epoch", last_epoch_},
            {"_step_count", step_count_},
            {"_last_lr", last_lr_},
            {"verbose", false},
            {"_get_lr_called_within_step", false}};
  save_args(s);
  return s;
}

void LRScheduler::load_state_dict(const Options& s) {
  const char* what = "LRScheduler.load_state_dict";
  if (s.count("base_lrs")) base_lrs_ = option_numbers(s, "base_lrs", what);
  if (s.count("last_epoch")) last_epoch_ = option_int(s, "last_epoch", what);
  if (s.count("_step_count")) step_count_ = option_int(s, "_step_count", what);
  if (s.count("_last_lr")) last_lr_ = option_numbers(s, "_last_lr", what);
  load_args(s);
}

// ---- LambdaLR ----

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.param_groups().size(), lr_lambda), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), lambdas_(std::move(lr_lambdas)) {
  ADEPT_CHECK(lambdas_.size() == optimizer.param_groups().size(), ValueError, "LambdaLR: Expected {} lr_lambdas, but got {}",
              optimizer.param_groups().size(), lambdas_.size());
  initial_step();
}

std::vector<double> LambdaLR::get_lr() const {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) lrs.push_back(base_lrs_[i] * lambdas_[i](last_epoch_));
  return lrs;
}

// ---- StepLR ----

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), step_size_(step_size), gamma_(gamma) {
  ADEPT_CHECK(step_size > 0, ValueError, "StepLR: step_size must be positive, got {}", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() const {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() const {
  std::vector<double> lrs;
  // Python's floor division.
  const int64_t k = last_epoch_ >= 0 ? last_epoch_ / step_size_ : -((-last_epoch_ + step_size_ - 1) / step_size_);
  for (double b : base_lrs_) lrs.push_back(b * std::pow(gamma_, static_cast<double>(k)));
  return lrs;
}

void StepLR::save_args(Options& s) const {
  s["step_size"] = step_size_;
  s["gamma"] = gamma_;
}

void StepLR::load_args(const Options& s) {
  if (s.count("step_size")) step_size_ = option_int(s, "step_size", "StepLR.load_state_dict");
  if (s.count("gamma")) gamma_ = option_number(s, "gamma", "StepLR.load_state_dict");
}

// ---- MultiStepLR ----

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() const {
  std::vector<double> lrs = group_lrs();
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (hits == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(hits));
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> lrs;
  for (double b : base_lrs_) lrs.push_back(b * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

void MultiStepLR::save_args(Options& s) const {
  s["milestones"] = to_doubles(milestones_);
  s["gamma"] = gamma_;
}

void MultiStepLR::load_args(const Options& s) {
  if (s.count("milestones")) milestones_ = to_ints(option_numbers(s, "milestones", "MultiStepLR.load_state_dict"));
  if (s.count("gamma")) gamma_ = option_number(s, "gamma", "MultiStepLR.load_state_dict");
}

// ---- ConstantLR ----

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), factor_(factor), total_iters_(total_iters) {
  ADEPT_CHECK(factor >= 0 && factor <= 1, ValueError,
              "ConstantLR: Constant multiplicative factor expected to be between 0 and 1, got {}", factor);
  initial_step();
}

std::vector<double> ConstantLR::get_lr() const {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= factor_;
  } else if (last_epoch_ == total_iters_) {
    for (double& lr : lrs) lr *= 1.0 / factor_;
  }
  return lrs;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double f = factor_ + (last_epoch_ >= total_iters_ ? 1.0 : 0.0) * (1 - factor_);
  for (double b : base_lrs_) lrs.push_back(b * f);
  return lrs;
}

void ConstantLR::save_args(Options& s) const {
  s["factor"] = factor_;
  s["total_iters"] = total_iters_;
}

void ConstantLR::load_args(const Options& s) {
  if (s.count("factor")) factor_ = option_number(s, "factor", "ConstantLR.load_state_dict");
  if (s.count("total_iters")) total_iters_ = option_int(s, "total_iters", "ConstantLR.load_state_dict");
}

// ---- LinearLR ----

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters,
                   int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
  ADEPT_CHECK(start_factor > 0 && start_factor <= 1, ValueError,
              "LinearLR: Starting multiplicative factor expected to be greater than 0 and less or equal to 1, got {}",
              start_factor);
  ADEPT_CHECK(end_factor >= 0 && end_factor <= 1, ValueError,
              "LinearLR: Ending multiplicative factor expected to be between 0 and 1, got {}", end_factor);
  initial_step();
}

std::vector<double> LinearLR::get_lr() const {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
  } else if (last_epoch_ <= total_iters_) {
    const double d = end_factor_ - start_factor_;
    const double f = 1.0 + d / (static_cast<double>(total_iters_) * start_factor_ + static_cast<double>(last_epoch_ - 1) * d);
    for (double& lr : lrs) lr *= f;
  }
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double t = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double b : base_lrs_) {
    lrs.push_back(b * (start_factor_ + (end_factor_ - start_factor_) * t / static_cast<double>(total_iters_)));
  }
  return lrs;
}

void LinearLR::save_args(Options& s) const {
  s["start_factor"] = start_factor_;
  s["end_factor"] = end_factor_;
  s["total_iters"] = total_iters_;
}

void LinearLR::load_args(const Options& s) {
  const char* what = "LinearLR.load_state_dict";
  if (s.count("start_factor")) start_factor_ = option_number(s, "start_factor", what);
  if (s.count("end_factor")) end_factor_ = option_number(s, "end_factor", what);
  if (s.count("total_iters")) total_iters_ = option_int(s, "total_iters", what);
}

// ---- ExponentialLR ----

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() const {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double b : base_lrs_) lrs.push_back(b * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

void ExponentialLR::save_args(Options& s) const { s["gamma"] = gamma_; }

void ExponentialLR::load_args(const Options& s) {
  if (s.count("gamma")) gamma_ = option_number(s, "gamma", "ExponentialLR.load_state_dict");
}

// ---- CosineAnnealingLR ----

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min, int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), T_max_(T_max), eta_min_(eta_min) {
  ADEPT_CHECK(T_max > 0, ValueError, "CosineAnnealingLR: T_max must be positive, got {}", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() const {
  constexpr double pi = std::numbers::pi;
  std::vector<double> lrs = group_lrs();
  const double T = static_cast<double>(T_max_);
  const double e = static_cast<double>(last_epoch_);
  if (last_epoch_ == 0) return lrs;
  if (step_count_ == 1 && last_epoch_ > 0) {
    // Constructed with a resumed last_epoch: the closed form.
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(e * pi / T)) / 2;
    return lrs;
  }
  // Python's modulo (non-negative for a positive divisor).
  const int64_t period = 2 * T_max_;
  const int64_t r = ((last_epoch_ - 1 - T_max_) % period + period) % period;
  if (r == 0) {
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] += (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    return lrs;
  }
  const double ratio = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T));
  for (double& lr : lrs) lr = ratio * (lr - eta_min_) + eta_min_;
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() const {
  constexpr double pi = std::numbers::pi;
  std::vector<double> lrs;
  const double c = (1 + std::cos(pi * static_cast<double>(last_epoch_) / static_cast<double>(T_max_))) / 2;
  for (double b : base_lrs_) lrs.push_back(eta_min_ + (b - eta_min_) * c);
  return lrs;
}

void CosineAnnealingLR::save_args(Options& s) const {
  s["T_max"] = T_max_;
  s["eta_min"] = eta_min_;
}

void CosineAnnealingLR::load_args(const Options& s) {
  if (s.count("T_max")) T_max_ = option_int(s, "T_max", "CosineAnnealingLR.load_state_dict");
  if (s.count("eta_min")) eta_min_ = option_number(s, "eta_min", "CosineAnnealingLR.load_state_dict");
}

// ---- SequentialLR ----

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler(optimizer, -1), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
  ADEPT_CHECK(!schedulers_.empty(), ValueError, "SequentialLR: expects at least one scheduler");
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    ADEPT_CHECK(schedulers_[i] && &schedulers_[i]->optimizer() == &optimizer, ValueError,
                "SequentialLR: Sequential Schedulers expects all schedulers to belong to the same optimizer, but got "
                "schedulers at index {} to be different than the optimizer passed in.",
                i);
  }
  ADEPT_CHECK(milestones_.size() + 1 == schedulers_.size(), ValueError,
              "SequentialLR: Sequential Schedulers expects number of schedulers provided to be one more than the "
              "number of milestone points, but got number of schedulers {} and the number of milestones to be "
              "equal to {}",
              schedulers_.size(), milestones_.size());
  last_epoch_ = last_epoch + 1;
  // Back to the initial lrs; undo the step each scheduler made when it was built; start the first.
  for (ParamGroup& g : optimizer.param_groups()) g.options["lr"] = option_number(g.options, "initial_lr", "SequentialLR");
  for (auto& s : schedulers_) --s->last_epoch_;
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step(std::optional<int64_t> epoch) {
  ADEPT_CHECK(!epoch, ValueError, "SequentialLR.step takes no epoch");
  ++last_epoch_;
  const size_t idx = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  LRScheduler& s = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    s.step(0);
  } else {
    s.step();
  }
  last_lr_ = s.get_last_lr();
}

Options SequentialLR::state_dict() const {
  Options out{{"_milestones", to_doubles(milestones_)},
              {"last_epoch", last_epoch_},
              {"_last_lr", last_lr_}};
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    for (auto& [key, value] : schedulers_[i]->state_dict()) out[fmt::format("_schedulers.{}.{}", i, key)] = value;
  }
  return out;
}

void SequentialLR::load_state_dict(const Options& state) {
  const char* what = "SequentialLR.load_state_dict";
  if (state.count("_milestones")) milestones_ = to_ints(option_numbers(state, "_milestones", what));
  if (state.count("last_epoch")) last_epoch_ = option_int(state, "last_epoch", what);
  if (state.count("_last_lr")) last_lr_ = option_numbers(state, "_last_lr", what);
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    const std::string prefix = fmt::format("_schedulers.{}.", i);
    Options sub;
    for (const auto& [key, value] : state) {
      if (key.rfind(prefix, 0) == 0) sub[key.substr(prefix.size())] = value;
    }
    schedulers_[i]->load_state_dict(sub);
  }
}

}  // namespace adept::optim
