// torch.amp.GradScaler (include/adept/optim/grad_scaler.h). The scale lives on the host as a float32; the
// gradients are unscaled and checked on their device, in one multi-tensor kernel call per device where the device
// has one (src/kernels/optim.h), else per tensor with ops.
#include "adept/optim/grad_scaler.h"

#include <cmath>
#include <map>
#include <utility>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "kernels/optim.h"

namespace adept::optim {
namespace {

void check_factors(double growth, double backoff) {
  ADEPT_CHECK(growth > 1.0, ValueError, "GradScaler: the growth factor must be > 1.0, got {}", growth);
  ADEPT_CHECK(backoff > 0.0 && backoff < 1.0, ValueError, "GradScaler: the backoff factor must be in (0, 1), got {}",
              backoff);
}

// grads (one device and dtype) *= inv_scale; returns the flag (1 element, the grads' dtype): 1 if any was inf /
// NaN.
Tensor unscale_group(const std::vector<Tensor>& grads, double inv_scale) {
  const Device device = grads[0].device();
  const Dtype dtype = grads[0].dtype();
  Tensor found = zeros({1}, TensorOptions(dtype).set_device(device));
  std::vector<Tensor> dense, strided;
  for (const Tensor& g : grads) (g.is_contiguous() ? dense : strided).push_back(g);
  if (!dense.empty() && amp_unscale_kernel().supports(device.type, 0, dtype)) {
    amp_unscale_kernel().get(device, "GradScaler.unscale_")(dense, found, inv_scale);
  } else {
    strided.insert(strided.end(), dense.begin(), dense.end());
  }
  for (const Tensor& g : strided) {
    found = maximum(found, any(logical_not(isfinite(g))).to(dtype).reshape({1}));
    Tensor(g).mul_(inv_scale);
  }
  return found;
}

}  // namespace

GradScaler::GradScaler(const GradScalerOptions& o)
    : scale_(static_cast<float>(o.init_scale)),
      growth_factor_(o.growth_factor),
      backoff_factor_(o.backoff_factor),
      growth_interval_(o.growth_interval),
      enabled_(o.enabled) {
  if (!enabled_) return;  // as PyTorch, a disabled scaler checks nothing
  check_factors(o.growth_factor, o.backoff_factor);
  ADEPT_CHECK(o.init_scale > 0 && std::isfinite(scale_), ValueError,
              "GradScaler: init_scale must be a positive finite float32, got {}", o.init_scale);
  ADEPT_CHECK(o.growth_interval > 0, ValueError, "GradScaler: growth_interval must be positive, got {}",
              o.growth_interval);
}

Tensor GradScaler::scale(const Tensor& outputs) const {
  if (!enabled_) return outputs;
  return outputs * static_cast<double>(scale_);
}

void GradScaler::unscale_(Optimizer& optimizer) {
  if (!enabled_) return;
  PerOptimizer& st = per_optimizer_[&optimizer];
  ADEPT_CHECK(st.stage != Stage::Unscaled, Error,
              "GradScaler.unscale_: unscale_() has already been called on this optimizer since the last update()");
  ADEPT_CHECK(st.stage != Stage::Stepped, Error, "GradScaler.unscale_: unscale_() is being called after step()");
  // PyTorch rounds 1 / S in double to float32.
  const double inv_scale = static_cast<double>(static_cast<float>(1.0 / static_cast<double>(scale_)));
  std::map<std::pair<std::string, int>, std::vector<Tensor>> groups;  // (device, dtype) -> grads
  NoGradGuard ng;
  for (const ParamGroup& group : optimizer.param_groups()) {
    for (const Tensor& p : group.params) {
      const Tensor g = p.grad();
      if (!g.defined()) continue;
      ADEPT_CHECK(g.dtype() != kFloat16, ValueError,
                  "GradScaler.unscale_: attempting to unscale float16 gradients (keep the parameters in float32 and "
                  "let autocast cast them)");
      groups[{g.device().str(), static_cast<int>(g.dtype())}].push_back(g);
    }
  }
  st.found_inf.clear();
  st.found_host.reset();
  for (const auto& [key, grads] : groups) st.found_inf.push_back(unscale_group(grads, inv_scale));
  st.stage = Stage::Unscaled;
}

bool GradScaler::any_found(PerOptimizer& st) {
  if (!st.found_host) {
    st.found_host = false;
    for (const Tensor& f : st.found_inf) st.found_host = *st.found_host || f.item<double>() != 0;
  }
  return *st.found_host;
}

bool GradScaler::step_begin(Optimizer& optimizer) {
  if (!enabled_) return true;
  PerOptimizer& st = per_optimizer_[&optimizer];
  ADEPT_CHECK(st.stage != Stage::Stepped, Error,
              "GradScaler.step: step() has already been called since the last update()");
  if (st.stage == Stage::Ready) unscale_(optimizer);
  ADEPT_CHECK(!st.found_inf.empty(), Error,
              "GradScaler.step: no inf checks were recorded for this optimizer (none of its parameters has a gradient)");
  return !any_found(st);
}

void GradScaler::step_end(Optimizer& optimizer) {
  if (enabled_) per_optimizer_[&optimizer].stage = Stage::Stepped;
}

bool GradScaler::step(Optimizer& optimizer) {
  const bool go = step_begin(optimizer);
  if (go) optimizer.step();
  step_end(optimizer);
  return go;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!enabled_) return;
  if (new_scale) {
    scale_ = static_cast<float>(*new_scale);
  } else {
    bool recorded = false, found = false;
    for (auto& [opt, st] : per_optimizer_) {
      recorded = recorded || !st.found_inf.empty();
      found = found || any_found(st);
    }
    ADEPT_CHECK(recorded, Error,
                "GradScaler.update: no inf checks were recorded prior to update() (call step() or unscale_() first)");
    if (found) {
      scale_ = static_cast<float>(scale_ * backoff_factor_);
      growth_tracker_ = 0;
    } else if (growth_tracker_ + 1 == growth_interval_) {
      const float grown = static_cast<float>(scale_ * growth_factor_);
      if (std::isfinite(grown)) scale_ = grown;
      growth_tracker_ = 0;
    } else {
      ++growth_tracker_;
    }
  }
  per_optimizer_.clear();
}

void GradScaler::set_growth_factor(double v) {
  check_factors(v, backoff_factor_);
  growth_factor_ = v;
}

void GradScaler::set_backoff_factor(double v) {
  check_factors(growth_factor_, v);
  backoff_factor_ = v;
}

void GradScaler::set_growth_interval(int64_t v) {
  ADEPT_CHECK(v > 0, ValueError, "GradScaler: growth_interval must be positive, got {}", v);
  growth_interval_ = v;
}

Options GradScaler::state_dict() const {
  if (!enabled_) return {};
  return {{"scale", static_cast<double>(scale_)},
          {"growth_factor", growth_factor_},
          {"backoff_factor", backoff_factor_},
          {"growth_interval", growth_interval_},
          {"_growth_tracker", growth_tracker_}};
}

void GradScaler::load_state_dict(const Options& state) {
  if (!enabled_) return;
  ADEPT_CHECK(!state.empty(), Error,
              "GradScaler.load_state_dict: the state dict is empty, possibly because it was saved from a disabled "
              "GradScaler");
  const std::string what = "GradScaler state_dict";
  const double scale = option_number(state, "scale", what), growth = option_number(state, "growth_factor", what),
               backoff = option_number(state, "backoff_factor", what);
  check_factors(growth, backoff);
  const double interval = option_number(state, "growth_interval", what),
               tracker = option_number(state, "_growth_tracker", what);
  ADEPT_CHECK(interval >= 1 && tracker >= 0, ValueError,
              "GradScaler.load_state_dict: growth_interval {} and _growth_tracker {} must be positive / non-negative",
              interval, tracker);
  scale_ = static_cast<float>(scale);
  growth_factor_ = growth;
  backoff_factor_ = backoff;
  growth_interval_ = static_cast<int64_t>(interval);
  growth_tracker_ = static_cast<int64_t>(tracker);
}

}  // namespace adept::optim
