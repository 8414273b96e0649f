// nn::Module: the base of every layer and model, holding parameters, buffers and child modules by
// name, with PyTorch's traversal, train/eval, device/dtype moves and state_dict (torch.nn.Module).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adept/tensor.h"

namespace adept::nn {

/// An ordered name -> tensor map as returned by state_dict() (insertion order = registration order,
/// dotted names such as `layer1.0.weight`).
using StateDict = std::vector<std::pair<std::string, Tensor>>;

/// What load_state_dict(strict=false) found: keys the module expects but `state` lacks, and keys of
/// `state` the module does not have.
struct LoadStateDictResult {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

/// Base class of layers and models (torch.nn.Module). Children are held by shared_ptr; parameters
/// and buffers are tensors registered under a name. Subclasses register everything in their
/// constructor and override forward(); modules whose forward takes other arguments (several
/// tensors, a list) add their own forward overloads.
///
/// Modules are meant to be owned by std::shared_ptr (std::make_shared); a module on the stack
/// works too, but then modules()/named_modules() list it through a non-owning pointer.
class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string type_name = "Module");
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// The single-tensor forward of this module. The base raises an Error naming the module type
  /// (for modules that have no single-tensor forward).
  virtual Tensor forward(const Tensor& input);
  Tensor operator()(const Tensor& input) { return forward(input); }

  /// The class name shown by repr and in error messages (e.g. "Conv2d"); virtual so that a
  /// Python subclass reports its own class name.
  virtual std::string type_name() const { return type_name_; }

  // ---- registration (names must be non-empty and without '.'; KeyError-like ValueError when the
  // name is already taken by a member of another kind) ----
  /// Registers `t` as a parameter: a leaf sharing t's storage whose requires_grad is
  /// `requires_grad` (see Parameter()). An undefined `t` registers an absent parameter (e.g.
  /// bias=False), skipped by parameters() and state_dict(). Re-registering a parameter name
  /// replaces it. Returns the registered handle.
  Tensor register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  /// Registers a buffer (running statistics...), undefined allowed (skipped like absent
  /// parameters). Non-persistent buffers are left out of state_dict. Re-registering a buffer name
  /// replaces it.
  Tensor register_buffer(const std::string& name, Tensor t, bool persistent = true);
  /// Registers a child module under `name` (null allowed: an absent child, skipped by traversal);
  /// returns it typed for convenient member init. Re-registering a child name replaces it.
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    register_module_impl(name, m);
    return m;
  }
  /// Replaces the child registered as `name` (ValueError when there is none).
  void replace_module(const std::string& name, std::shared_ptr<Module> m);
  /// Removes the parameter, buffer or child called `name`; returns whether one existed.
  bool unregister(const std::string& name);

  /// Lookup of direct members by name (an absent parameter/buffer is an undefined tensor); ValueError
  /// naming the module type when the name is not registered. References stay valid until the next
  /// registration or removal on this module.
  Tensor& parameter(const std::string& name);
  const Tensor& parameter(const std::string& name) const;
  Tensor& buffer(const std::string& name);
  const Tensor& buffer(const std::string& name) const;
  std::shared_ptr<Module> child(const std::string& name) const;
  bool has_parameter(const std::string& name) const;
  bool has_buffer(const std::string& name) const;
  bool has_child(const std::string& name) const;
  bool is_persistent_buffer(const std::string& name) const;

  // ---- traversal (registration order, depth first, each tensor/module listed once) ----
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_parameters(const std::string& prefix = "",
                                                                bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(const std::string& prefix = "",
                                                             bool recurse = true) const;
  /// Direct children, absent (null) ones skipped; a module registered twice is listed once.
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  /// This module first (named `prefix`), then every descendant with its dotted name.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules(const std::string& prefix = "");
  std::vector<std::shared_ptr<Module>> modules();
  /// Calls fn on every descendant and then on this module (torch's apply order: children first).
  Module& apply(const std::function<void(Module&)>& fn);

  // ---- modes and state ----
  /// Sets the training flag of this module and all descendants (torch's train(mode)).
  virtual Module& train(bool mode = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  /// Sets the training flag of this module only (what train() applies to each module).
  void set_training(bool mode) { training_ = mode; }
  /// Sets requires_grad of every parameter (freezing with false).
  Module& requires_grad_(bool requires_grad = true);
  /// Clears gradients of all parameters: to undefined (set_to_none, the default as in torch 2.x)
  /// or to zeros.
  void zero_grad(bool set_to_none = true);
  /// Moves/casts parameters, buffers and their gradients in place: the Tensor handles registered
  /// stay the same objects (their TensorImpl gets the new storage/dtype), so optimizers built
  /// before keep working. Only floating-point tensors change dtype (DtypeError for a non-floating
  /// `dtype`, as torch).
  Module& to(const Device& device);
  Module& to(Dtype dtype);
  Module& to(const Device& device, Dtype dtype);

  /// Parameters and persistent buffers by dotted name (tensors share storage with the module and
  /// are detached from autograd).
  StateDict state_dict(const std::string& prefix = "") const;
  /// Copies values from `state` into the registered tensors (under no_grad; dtype/device cast to
  /// the module's). With strict, missing or unexpected keys and shape mismatches raise one Error
  /// listing all of them (torch's message, "Error(s) in loading state_dict for Net: ...");
  /// without strict, only shape mismatches raise, and missing/unexpected keys are returned.
  LoadStateDictResult load_state_dict(const StateDict& state, bool strict = true);

  /// One-line (or multi-line) description of this module's options, e.g.
  /// "3, 16, kernel_size=(3, 3), stride=(1, 1)"; empty by default.
  virtual std::string extra_repr() const { return ""; }
  /// The nested multi-line repr torch prints for print(model).
  std::string repr() const;

 protected:
  bool training_ = true;
  /// The children list itself, for containers that renumber or reorder their entries.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children_list() { return children_; }
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children_list() const { return children_; }
  /// Called on this module and every descendant after to() moved / cast their tensors (`dtype` is the
  /// floating-point dtype asked for, nullopt for a device move): modules whose computation depends on the
  /// dtype beyond their registered tensors (an imported ONNX graph without floating-point parameters) follow it.
  virtual void on_converted(const std::optional<Device>& device, std::optional<Dtype> dtype) {
    (void)device;
    (void)dtype;
  }

 private:
  struct Slot {
    std::string name;
    Tensor tensor;
    bool persistent = true;
  };
  void register_module_impl(const std::string& name, std::shared_ptr<Module> m);
  void check_new_name(const std::string& name, const char* kind) const;
  void collect_named_tensors(bool params, const std::string& prefix, bool recurse,
                             std::vector<std::pair<std::string, Tensor>>& out,
                             std::vector<const TensorImpl*>& seen) const;
  void collect_named_modules(const std::string& prefix, std::shared_ptr<Module> self,
                             std::vector<std::pair<std::string, std::shared_ptr<Module>>>& out,
                             std::vector<const Module*>& seen);
  void collect_state(const std::string& prefix, StateDict& out) const;
  void convert(const std::optional<Device>& device, std::optional<Dtype> dtype);
  std::string type_name_;
  std::vector<Slot> parameters_;
  std::vector<Slot> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

/// Parameter(t, requires_grad): a leaf tensor that shares t's storage and requires grad
/// (torch.nn.Parameter); detached from any history t had.
Tensor Parameter(const Tensor& t, bool requires_grad = true);

}  // namespace adept::nn
