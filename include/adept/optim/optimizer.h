// Optimizer: the base of Adept's gradient-descent optimizers (torch.optim.Optimizer): parameter
// groups with per-group options, per-parameter state, zero_grad, step and torch's state_dict layout.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "adept/tensor.h"

namespace adept::optim {

/// A param-group option or scheduler state entry: None, a flag, an integer, a number, a tuple of
/// numbers (betas, base_lrs) or a string.
using OptionValue = std::variant<std::monostate, bool, int64_t, double, std::vector<double>, std::string>;
/// Options by name: the entries of a torch param group other than "params" (lr, momentum, betas...).
using Options = std::map<std::string, OptionValue>;

/// Reads `key` of `options` as a number (an int or float entry); ValueError naming `what` and the
/// key when it is absent or not a number.
double option_number(const Options& options, const std::string& key, const std::string& what);
/// Reads `key` as a flag; ValueError when absent or not a bool.
bool option_flag(const Options& options, const std::string& key, const std::string& what);
/// Reads `key` as a tuple of numbers; ValueError when absent or not a tuple.
std::vector<double> option_numbers(const Options& options, const std::string& key, const std::string& what);

/// One parameter group: the tensors it updates and its options (torch's param_groups[i] dict).
struct ParamGroup {
  std::vector<Tensor> params;
  Options options;
};

/// The state of one parameter by name (momentum_buffer; step, exp_avg, exp_avg_sq, max_exp_avg_sq).
using ParamState = std::map<std::string, Tensor>;

/// torch's Optimizer.state_dict(): `state` keyed by the index of a parameter when all groups'
/// params are numbered in order (only parameters that have state), and each group's options with
/// the indices of its params. Tensors are shared with the optimizer (not copies), as in torch.
struct OptimizerStateDict {
  struct Group {
    Options options;
    std::vector<int64_t> params;
  };
  std::map<int64_t, ParamState> state;
  std::vector<Group> param_groups;
};

/// An OptimizerStateDict flattened for tensor-file checkpoints (safetensors): tensors named
/// `state.<index>.<key>` and a JSON string `{"param_groups": [{<options>..., "params": [i...]}]}`.
struct FlatOptimizerState {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::string json;
};
FlatOptimizerState flatten_state_dict(const OptimizerStateDict& state_dict);
/// Inverse of flatten_state_dict. ValueError on malformed JSON or tensor names.
OptimizerStateDict unflatten_state_dict(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                        const std::string& json);
/// Options (e.g. a scheduler's state_dict) as a JSON object and back (None -> null, tuples ->
/// arrays), for checkpoints. options_from_json: ValueError on malformed JSON or a value of
/// another JSON type (an object, a list of non-numbers).
std::string options_to_json(const Options& options);
Options options_from_json(const std::string& json);

/// Base class of the optimizers. Subclasses define the update of one group (step_group); the base
/// owns the groups and per-parameter state and runs steps under no-grad, in place on the parameter
/// tensors (so modules holding the same tensors see the update). Parameters whose grad is
/// undefined are skipped. Options are read from the group at every step, so changing
/// param_groups()[i].options["lr"] (what LR schedulers do) takes effect at the next step.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// Class name ("SGD", "Adam", "AdamW"), used in error messages.
  const std::string& name() const { return name_; }
  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  /// The constructor's options, which fill the options a group does not set.
  const Options& defaults() const { return defaults_; }

  /// Adds a group; its missing options are taken from defaults(). ValueError when a param is not
  /// a leaf (and does not retain grad), or is already in another group (torch.optim.Optimizer).
  void add_param_group(ParamGroup group);
  /// Clears the grads of all params: undefined with set_to_none (the default, as in torch 2.x;
  /// torch 1.13 defaulted to false), else zeroed in place (detached from any graph first).
  void zero_grad(bool set_to_none = true);
  /// One optimization step over every group, under no-grad.
  void step();
  /// Evaluates `closure` with grad enabled (it recomputes the loss and calls backward), then steps;
  /// returns the closure's loss.
  Tensor step(const std::function<Tensor()>& closure);

  /// The state of `param` (created empty on first access).
  ParamState& state(const Tensor& param) { return state_[param.impl()]; }
  /// Number of step() calls so far (what LR schedulers check to warn about call order).
  int64_t step_count() const { return step_count_; }

  OptimizerStateDict state_dict() const;
  /// Restores options and state. ValueError when the number of groups or of params in a group
  /// differs, or when a param's (non-empty) state lacks one of required_state_keys(), has a "step"
  /// of more than one element or another entry whose shape differs from the param's (checked
  /// here so that step() cannot fail later on a malformed state). State tensors are copied, cast
  /// to their param's dtype (floating params, except "step") and moved to its device, as torch.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  /// `groups` must hold at least one parameter (ValueError "optimizer got an empty parameter list").
  Optimizer(std::string name, std::vector<ParamGroup> groups, Options defaults);
  /// Updates the params of `group` that have a grad. Called under no-grad.
  virtual void step_group(ParamGroup& group) = 0;
  /// The entries step_group expects in a param's non-empty state (validated by load_state_dict).
  virtual std::vector<std::string> required_state_keys() const { return {}; }

 private:
  std::string name_;
  Options defaults_;
  std::vector<ParamGroup> groups_;
  std::unordered_map<const TensorImpl*, ParamState> state_;
  int64_t step_count_ = 0;
};

/// One group of all `params` (what constructors taking a plain parameter list build).
std::vector<ParamGroup> single_group(std::vector<Tensor> params);

}  // namespace adept::optim
