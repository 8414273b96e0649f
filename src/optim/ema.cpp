// ModelEMA: exponential moving average of a module's state dict with Ultralytics' warm-up decay.
#include "adept/optim/ema.h"

#include <cmath>
#include <map>
#include <unordered_map>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "kernels/optim.h"
#include "ops/helpers.h"

namespace adept::optim {

namespace {

nn::StateDict detached_copy(const nn::StateDict& state) {
  NoGradGuard no_grad;
  nn::StateDict out;
  for (const auto& [name, t] : state) {
    ADEPT_CHECK(t.defined(), ValueError, "ModelEMA: state dict entry '{}' is an undefined tensor", name);
    out.emplace_back(name, t.detach().clone());
  }
  return out;
}

}  // namespace

ModelEMA::ModelEMA(const nn::Module& model, double decay, double tau, int64_t updates)
    : ModelEMA(model.state_dict(), decay, tau, updates) {}

ModelEMA::ModelEMA(const nn::StateDict& model_state, double decay, double tau, int64_t updates)
    : state_(detached_copy(model_state)), decay_(decay), tau_(tau), updates_(updates) {
  ADEPT_CHECK(decay >= 0 && decay <= 1, ValueError, "ModelEMA: decay must be in [0, 1], got {}", decay);
  ADEPT_CHECK(tau > 0, ValueError, "ModelEMA: tau must be positive, got {}", tau);
  ADEPT_CHECK(updates >= 0, ValueError, "ModelEMA: updates must be >= 0, got {}", updates);
}

double ModelEMA::decay_at(int64_t updates) const {
  return decay_ * (1 - std::exp(-static_cast<double>(updates) / tau_));
}

void ModelEMA::update(const nn::Module& model) { update(model.state_dict()); }

void ModelEMA::update(const nn::StateDict& model_state) {
  std::unordered_map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : model_state) by_name[name] = &t;
  // Check everything before writing, so a failed update leaves the average untouched.
  for (const auto& [name, v] : state_) {
    auto it = by_name.find(name);
    ADEPT_CHECK(it != by_name.end() && it->second->defined(), ValueError,
                "ModelEMA.update: the model has no entry '{}'", name);
    ADEPT_CHECK(it->second->sizes() == v.sizes(), ValueError,
                "ModelEMA.update: entry '{}' has shape {} in the model but {} in the average", name,
                shape_str(it->second->sizes()), shape_str(v.sizes()));
  }
  NoGradGuard no_grad;
  ++updates_;
  const double d = decay_at(updates_);
  // Floating entries on a device with the multi-tensor kernel: one call per (device, dtype).
  std::map<std::pair<std::string, Dtype>, std::pair<std::vector<Tensor>, std::vector<Tensor>>> fused;
  for (auto& [name, v] : state_) {
    const Tensor m = by_name.at(name)->detach();
    if (v.is_floating_point() && v.is_contiguous() && ema_update_kernel().supports(v.device().type, 0, v.dtype())) {
      auto& [averages, values] = fused[{v.device().str(), v.dtype()}];
      averages.push_back(v);
      values.push_back(m.to(v.device(), v.dtype()).contiguous());
      continue;
    }
    if (v.is_floating_point()) {
      v.mul_(d).add_(m.to(v.device(), v.dtype()), 1 - d);
    } else {
      v.copy_(m);
    }
  }
  for (auto& [key, lists] : fused) {
    ema_update_kernel().get(lists.first[0].device(), "ModelEMA.update")(lists.first, lists.second, d);
  }
}

void ModelEMA::copy_to(nn::Module& model) const { model.load_state_dict(state_, /*strict=*/true); }

void ModelEMA::load_state_dict(const nn::StateDict& state, int64_t updates) {
  ADEPT_CHECK(updates >= 0, ValueError, "ModelEMA.load_state_dict: updates must be >= 0, got {}", updates);
  state_ = detached_copy(state);
  updates_ = updates;
}

}  // namespace adept::optim
