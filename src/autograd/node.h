// Autograd graph nodes. A Node maps the gradients of its outputs to gradients of its inputs;
// its next_edges point at the nodes that produced those inputs (or AccumulateGrad for leaves).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

/// Shape/dtype/device of a node output, used to make zeros for outputs that got no gradient.
struct OutputMeta {
  Shape sizes;
  Dtype dtype;
  Device device;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node() = default;
  /// grads[i] is the gradient w.r.t. output i (zeros filled in when none flowed); returns one
  /// gradient per input (undefined where the input needs none).
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  virtual std::string name() const = 0;
  /// Drops saved tensors after a backward without retain_graph.
  virtual void release_saved() {}

  std::vector<Edge> next_edges;
  std::vector<OutputMeta> outputs;
  /// Non-leaf tensors (by output index) whose gradient is kept in `.grad` (retain_grad()).
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retained;
  uint64_t sequence_nr;
  /// The profile label under which the node was created (adept/profiler.h); its backward runs under it.
  const std::string* scope;
};

/// A tensor saved for backward together with the storage version it had when saved. Reading it
/// after an in-place change raises the error PyTorch users know.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t);  // NOLINT(google-explicit-constructor)
  /// Saves output `output_nr` of the node being recorded. Holding the output itself would make a
  /// cycle (node -> output -> grad_fn -> node), so its data is kept detached; get() inside a
  /// backward that builds a graph (create_graph) re-attaches it to the running node, so formulas in
  /// terms of the output (exp, tanh, softmax ...) have correct second derivatives (PyTorch's
  /// SavedVariable with is_output).
  static SavedTensor output(const Tensor& out, uint32_t output_nr = 0);
  Tensor get() const;
  bool defined() const { return tensor_.defined(); }

 private:
  Tensor tensor_;
  uint64_t version_ = 0;
  bool is_output_ = false;
  uint32_t output_nr_ = 0;
};

using BackwardFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& grads)>;

/// A node whose backward is a closure (captures SavedTensors and scalars). Releasing drops it.
class FunctionNode : public Node {
 public:
  FunctionNode(std::string name, BackwardFn fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  std::string name() const override { return name_; }
  void release_saved() override { fn_ = nullptr; released_ = true; }

 private:
  std::string name_;
  BackwardFn fn_;
  bool released_ = false;
};

/// Sink node of a leaf: adds the incoming gradient into the leaf's `.grad`.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {}
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const std::shared_ptr<TensorImpl>& leaf() const { return leaf_; }

 private:
  std::shared_ptr<TensorImpl> leaf_;
};

/// Re-derives the autograd history of a differentiable view from its base's when the storage was
/// written in place since the history was last set (PyTorch's view rebase): the view becomes an
/// as_strided view of the base's current history. No-op for non-views and up-to-date views.
void refresh_view(TensorImpl* impl);

/// The edge through which a gradient for `t` flows: its grad_fn, its AccumulateGrad, or none.
Edge gradient_edge(const Tensor& t);

/// True when grad mode is on and any of `inputs` requires grad.
bool needs_grad(std::initializer_list<const Tensor*> inputs);
bool needs_grad(const std::vector<Tensor>& inputs);

/// Connects `outputs` to a new FunctionNode named `name` whose inputs are `inputs`. No-op when
/// no input requires grad or grad mode is off. `fn` receives one gradient per output and returns
/// one per input (undefined for inputs that do not require grad).
void record(const std::string& name, const std::vector<Tensor>& inputs,
            const std::vector<Tensor>& outputs, BackwardFn fn);

/// Adds `g` into `t.grad` (clones on first write so gradients never alias other tensors).
void accumulate_into_grad(TensorImpl* t, const Tensor& g);

}  // namespace adept::autograd
