// Optimizer base: param groups, per-parameter state, zero_grad, step and (flattened) state_dict.
#include "adept/optim/optimizer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::optim {

namespace {

const OptionValue& option_at(const Options& options, const std::string& key, const std::string& what) {
  auto it = options.find(key);
  ADEPT_CHECK(it != options.end(), ValueError, "{}: option '{}' is not set", what, key);
  return it->second;
}

}  // namespace

double option_number(const Options& options, const std::string& key, const std::string& what) {
  const OptionValue& v = option_at(options, key, what);
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  throw ValueError(fmt::format("{}: option '{}' must be a number", what, key));
}

bool option_flag(const Options& options, const std::string& key, const std::string& what) {
  const OptionValue& v = option_at(options, key, what);
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  throw ValueError(fmt::format("{}: option '{}' must be a bool", what, key));
}

std::vector<double> option_numbers(const Options& options, const std::string& key, const std::string& what) {
  const OptionValue& v = option_at(options, key, what);
  if (const auto* t = std::get_if<std::vector<double>>(&v)) return *t;
  throw ValueError(fmt::format("{}: option '{}' must be a tuple of numbers", what, key));
}

std::vector<ParamGroup> single_group(std::vector<Tensor> params) {
  std::vector<ParamGroup> groups(1);
  groups[0].params = std::move(params);
  return groups;
}

Optimizer::Optimizer(std::string name, std::vector<ParamGroup> groups, Options defaults)
    : name_(std::move(name)), defaults_(std::move(defaults)) {
  size_t n = 0;
  for (const ParamGroup& g : groups) n += g.params.size();
  ADEPT_CHECK(!groups.empty() && n > 0, ValueError, "{}: optimizer got an empty parameter list", name_);
  for (ParamGroup& g : groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(ParamGroup group) {
  std::set<const TensorImpl*> seen;
  for (const ParamGroup& g : groups_) {
    for (const Tensor& p : g.params) seen.insert(p.impl());
  }
  for (size_t i = 0; i < group.params.size(); ++i) {
    const Tensor& p = group.params[i];
    ADEPT_CHECK(p.defined(), ValueError, "{}: param {} of the group is an undefined tensor", name_, i);
    ADEPT_CHECK(p.is_leaf() || p.retains_grad(), ValueError, "{}: can't optimize a non-leaf Tensor (param {})",
                name_, i);
    ADEPT_CHECK(!seen.count(p.impl()), ValueError, "{}: some parameters appear in more than one parameter group",
                name_);
  }
  for (const auto& [key, value] : defaults_) group.options.emplace(key, value);
  groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (ParamGroup& g : groups_) {
    for (Tensor& p : g.params) {
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        NoGradGuard no_grad;
        if (grad.grad_fn()) {
          grad = grad.detach();
          p.set_grad(grad);
        }
        grad.zero_();
      }
    }
  }
}

void Optimizer::step() {
  NoGradGuard no_grad;
  for (ParamGroup& g : groups_) step_group(g);
  ++step_count_;
}

Tensor Optimizer::step(const std::function<Tensor()>& closure) {
  Tensor loss;
  {
    EnableGradGuard grad;
    loss = closure();
  }
  step();
  return loss;
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict out;
  int64_t index = 0;
  for (const ParamGroup& g : groups_) {
    OptimizerStateDict::Group group{g.options, {}};
    for (const Tensor& p : g.params) {
      auto it = state_.find(p.impl());
      if (it != state_.end() && !it->second.empty()) out.state[index] = it->second;
      group.params.push_back(index++);
    }
    out.param_groups.push_back(std::move(group));
  }
  return out;
}

void Optimizer::load_state_dict(const OptimizerStateDict& sd) {
  ADEPT_CHECK(sd.param_groups.size() == groups_.size(), ValueError,
              "{}.load_state_dict: loaded state dict has a different number of parameter groups ({} vs {})",
              name_, sd.param_groups.size(), groups_.size());
  std::map<int64_t, Tensor> params_by_index;
  for (size_t i = 0; i < groups_.size(); ++i) {
    const auto& saved = sd.param_groups[i];
    ADEPT_CHECK(saved.params.size() == groups_[i].params.size(), ValueError,
                "{}.load_state_dict: loaded state dict contains a parameter group that doesn't match the size "
                "of optimizer's group (group {}: {} vs {} params)",
                name_, i, saved.params.size(), groups_[i].params.size());
    for (size_t j = 0; j < saved.params.size(); ++j) params_by_index[saved.params[j]] = groups_[i].params[j];
  }
  std::unordered_map<const TensorImpl*, ParamState> state;
  NoGradGuard no_grad;
  for (const auto& [index, entries] : sd.state) {
    auto it = params_by_index.find(index);
    ADEPT_CHECK(it != params_by_index.end(), ValueError,
                "{}.load_state_dict: state of param {} which no param group lists", name_, index);
    const Tensor& p = it->second;
    if (!entries.empty()) {
      for (const std::string& key : required_state_keys())
        ADEPT_CHECK(entries.count(key), ValueError, "{}.load_state_dict: the state of param {} lacks '{}'", name_,
                    index, key);
    }
    for (const auto& [key, value] : entries) {
      ADEPT_CHECK(value.defined(), ValueError, "{}.load_state_dict: state '{}' of param {} is undefined", name_, key,
                  index);
      if (key == "step") {
        ADEPT_CHECK(value.numel() == 1, ValueError,
                    "{}.load_state_dict: state 'step' of param {} must hold one number, got shape {}", name_, index,
                    shape_str(value.sizes()));
      } else {
        ADEPT_CHECK(value.sizes() == p.sizes(), ValueError,
                    "{}.load_state_dict: state '{}' of param {} has shape {}, expected the param's shape {}", name_,
                    key, index, shape_str(value.sizes()), shape_str(p.sizes()));
      }
    }
    ParamState& s = state[p.impl()];
    for (const auto& [key, value] : entries) {
      Tensor v = value.detach();
      if (key != "step" && p.is_floating_point() && v.is_floating_point()) v = v.to(p.dtype());
      // The step count stays on the host, as torch keeps it (non-fused, non-capturable): the optimizers read it
      // every step, which would otherwise be a device download per parameter.
      s[key] = (key == "step" ? v.to(kCPU) : v.to(p.device())).clone();
    }
  }
  state_ = std::move(state);
  for (size_t i = 0; i < groups_.size(); ++i) groups_[i].options = sd.param_groups[i].options;
}

// ---- flattening for checkpoints ----

namespace {

nlohmann::json to_json(const OptionValue& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else {
          return x;
        }
      },
      v);
}

OptionValue from_json(const nlohmann::json& j, const std::string& key) {
  if (j.is_null()) return std::monostate{};
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) {
    std::vector<double> out;
    for (const auto& e : j) {
      ADEPT_CHECK(e.is_number(), ValueError, "optimizer state JSON: option '{}' holds a non-number list", key);
      out.push_back(e.get<double>());
    }
    return out;
  }
  throw ValueError(fmt::format("optimizer state JSON: option '{}' has an unsupported JSON type", key));
}

}  // namespace

std::string options_to_json(const Options& options) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : options) j[key] = to_json(value);
  return j.dump();
}

Options options_from_json(const std::string& json) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(fmt::format("optimizer options: invalid JSON: {}", e.what()));
  }
  ADEPT_CHECK(j.is_object(), ValueError, "optimizer options: expected a JSON object, got {}", j.type_name());
  Options out;
  for (const auto& [key, value] : j.items()) out[key] = from_json(value, key);
  return out;
}

FlatOptimizerState flatten_state_dict(const OptimizerStateDict& sd) {
  FlatOptimizerState out;
  for (const auto& [index, entries] : sd.state) {
    for (const auto& [key, t] : entries) out.tensors.emplace_back(fmt::format("state.{}.{}", index, key), t);
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : sd.param_groups) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, value] : g.options) j[key] = to_json(value);
    j["params"] = g.params;
    groups.push_back(std::move(j));
  }
  out.json = nlohmann::json{{"param_groups", groups}}.dump();
  return out;
}

OptimizerStateDict unflatten_state_dict(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                        const std::string& json) {
  OptimizerStateDict sd;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(fmt::format("unflatten_state_dict: invalid JSON: {}", e.what()));
  }
  ADEPT_CHECK(j.is_object() && j.contains("param_groups") && j["param_groups"].is_array(), ValueError,
              "unflatten_state_dict: the JSON must be an object with a 'param_groups' list");
  for (const auto& g : j["param_groups"]) {
    ADEPT_CHECK(g.is_object() && g.contains("params") && g["params"].is_array(), ValueError,
                "unflatten_state_dict: each param group must be an object with a 'params' list");
    OptimizerStateDict::Group group;
    for (const auto& [key, value] : g.items()) {
      if (key == "params") {
        for (const auto& i : value) {
          ADEPT_CHECK(i.is_number_integer(), ValueError, "unflatten_state_dict: param indices must be integers");
          group.params.push_back(i.get<int64_t>());
        }
      } else {
        group.options[key] = from_json(value, key);
      }
    }
    sd.param_groups.push_back(std::move(group));
  }
  for (const auto& [name, t] : tensors) {
    // "state.<index>.<key>"; the key may itself contain dots.
    size_t dot = name.find('.', 6);
    ADEPT_CHECK(name.rfind("state.", 0) == 0 && dot != std::string::npos && dot > 6, ValueError,
                "unflatten_state_dict: tensor name '{}' is not of the form state.<index>.<key>", name);
    int64_t index = 0;
    try {
      size_t used = 0;
      index = std::stoll(name.substr(6, dot - 6), &used);
      ADEPT_CHECK(used == dot - 6, ValueError, "unflatten_state_dict: bad index in tensor name '{}'", name);
    } catch (const std::logic_error&) {
      throw ValueError(fmt::format("unflatten_state_dict: bad index in tensor name '{}'", name));
    }
    sd.state[index][name.substr(dot + 1)] = t;
  }
  return sd;
}

}  // namespace adept::optim
