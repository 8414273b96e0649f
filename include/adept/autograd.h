// Reverse-mode automatic differentiation: grad-mode guards and autograd::grad.
// The graph is built dynamically as ops run on tensors that require grad; Tensor::backward()
// walks it in reverse topological order and *accumulates* gradients into the leaves' `.grad`.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept {

/// Whether ops record autograd history on this thread (default true).
bool is_grad_enabled();
void set_grad_enabled(bool enabled);

/// RAII: disables gradient recording for its scope (torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard() : prev_(is_grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

/// RAII: enables gradient recording for its scope (torch.enable_grad()).
class EnableGradGuard {
 public:
  EnableGradGuard() : prev_(is_grad_enabled()) { set_grad_enabled(true); }
  ~EnableGradGuard() { set_grad_enabled(prev_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool prev_;
};

namespace autograd {

/// Computes and accumulates gradients of `outputs` into the `.grad` of the leaves they depend on.
/// `grad_outputs[i]` may be undefined for a one-element output (then ones). Throws AutogradError
/// when an output does not require grad, a graph is reused after being freed (pass
/// retain_graph=true to keep it), or a saved tensor was modified in place.
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs = {},
              bool retain_graph = false, bool create_graph = false);

/// Returns d(outputs)/d(inputs) without touching any `.grad` (torch.autograd.grad). An input the
/// outputs do not depend on raises unless allow_unused, in which case its gradient is undefined.
/// retain_graph defaults to create_graph.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {},
                         std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                         bool allow_unused = false);

/// Queues `fn` to run once the backward pass running on this thread has processed every node, before
/// it returns (PyTorch's Variable._execution_engine.queue_callback; DistributedDataParallel waits for
/// its all-reduces there). Callbacks run in queueing order and may queue more. AutogradError when no
/// backward is running on this thread.
void queue_callback(std::function<void()> fn);

/// The leaves (tensors that require grad and have no grad_fn) whose `.grad` a backward from `outputs`
/// would reach, each once, in no particular order (how DistributedDataParallel finds the parameters a
/// forward did not use).
std::vector<Tensor> reachable_leaves(const std::vector<Tensor>& outputs);

/// Name of a grad_fn node, e.g. "MulBackward0".
std::string node_name(const Node& node);

}  // namespace autograd
}  // namespace adept
