// The backward engine: dependency counting from the roots, then execution in order of
// decreasing sequence number (the reverse of creation), accumulating gradients per node input.
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "adept/profiler.h"
#include "autograd/node.h"
#include "ops/autocast_scope.h"

namespace adept::autograd {
namespace {

struct CompareSeq {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

// Callbacks queued (queue_callback) by the backward running on this thread; null outside one.
thread_local std::vector<std::function<void()>>* t_final_callbacks = nullptr;

struct Capture {
  Node* node;
  uint32_t input_nr;
  size_t slot;
};

// Runs the graph from `roots` (with their initial gradients). When `captures` is non-empty,
// gradients arriving at those (node, input) pairs are stored in `captured` and AccumulateGrad
// nodes are not run (autograd.grad semantics).
void run_backward(const std::vector<Edge>& roots, const std::vector<Tensor>& root_grads, bool retain_graph,
                  bool create_graph, const std::vector<Capture>& captures, std::vector<Tensor>* captured) {
  // Dependency counts: number of incoming edges from nodes reachable from the roots.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep;
  std::vector<Node*> stack;
  for (const Edge& e : roots) {
    if (e.valid() && keep.emplace(e.fn.get(), e.fn).second) stack.push_back(e.fn.get());
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      deps[e.fn.get()]++;
      if (keep.emplace(e.fn.get(), e.fn).second) stack.push_back(e.fn.get());
    }
  }

  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  auto add_to_buffer = [&](Node* n, uint32_t input_nr, const Tensor& g) {
    auto& buf = buffers[n];
    if (buf.size() < n->outputs.size()) buf.resize(n->outputs.size());
    if (!g.defined()) return;
    Tensor& slot = buf.at(input_nr);
    slot = slot.defined() ? add(slot, g) : g;
  };
  std::priority_queue<Node*, std::vector<Node*>, CompareSeq> ready;
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].valid()) continue;
    add_to_buffer(roots[i].fn.get(), roots[i].input_nr, root_grads[i]);
  }
  for (const Edge& e : roots) {
    if (e.valid() && deps[e.fn.get()] == 0) {
      deps[e.fn.get()] = -1;  // queued
      ready.push(e.fn.get());
    }
  }

  std::unordered_set<Node*> capture_nodes;
  for (const auto& c : captures) capture_nodes.insert(c.node);

  std::vector<std::function<void()>> final_callbacks;
  struct CallbackScope {
    std::vector<std::function<void()>>* prev;
    explicit CallbackScope(std::vector<std::function<void()>>* cbs) : prev(t_final_callbacks) { t_final_callbacks = cbs; }
    ~CallbackScope() { t_final_callbacks = prev; }
  } callback_scope(&final_callbacks);

  std::optional<NoGradGuard> no_grad;
  std::optional<EnableGradGuard> enable_grad;
  if (create_graph) enable_grad.emplace(); else no_grad.emplace();
  const autocast::Suspend no_autocast;  // backward ops run in the forward's dtypes (ops/autocast.h)

  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    profiler::ScopeGuard label({n->scope, true});  // this node's work is its layer's backward
    std::vector<Tensor> grads = std::move(buffers[n]);
    buffers.erase(n);
    grads.resize(n->outputs.size());
    for (auto& [idx, weak] : n->retained) {
      if (auto impl = weak.lock(); impl && grads.at(idx).defined()) accumulate_into_grad(impl.get(), grads[idx]);
    }
    if (capture_nodes.count(n)) {
      for (const auto& c : captures) {
        if (c.node == n && grads.at(c.input_nr).defined()) {
          Tensor& dst = (*captured)[c.slot];
          dst = dst.defined() ? add(dst, grads[c.input_nr]) : grads[c.input_nr];
        }
      }
    }
    bool is_acc = dynamic_cast<AccumulateGrad*>(n) != nullptr;
    if (is_acc && !captures.empty()) continue;
    bool any_defined = false;
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i].defined()) {
        any_defined = true;
      } else {
        const auto& m = n->outputs[i];
        grads[i] = zeros(m.sizes, TensorOptions(m.dtype).set_device(m.device));
      }
    }
    std::vector<Tensor> input_grads;
    if (any_defined) input_grads = n->apply(std::move(grads));
    if (!retain_graph) n->release_saved();
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      Tensor g = i < input_grads.size() ? input_grads[i] : Tensor();
      add_to_buffer(e.fn.get(), e.input_nr, g);
      if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
    }
  }
  // A callback may queue another: run until none is left, in queueing order.
  for (size_t i = 0; i < final_callbacks.size(); ++i) {
    auto fn = std::move(final_callbacks[i]);
    fn();
  }
}

std::vector<Tensor> make_root_grads(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                                    const char* op) {
  ADEPT_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), ValueError,
              "{}: got {} outputs but {} grad_outputs", op, outputs.size(), grad_outputs.size());
  std::vector<Tensor> grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    ADEPT_CHECK(out.requires_grad(), AutogradError,
                "{}: element {} of tensors does not require grad and does not have a grad_fn", op, i);
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      ADEPT_CHECK(out.numel() == 1, AutogradError,
                  "{}: grad can be implicitly created only for scalar outputs (got shape [{}])", op,
                  fmt::join(out.sizes(), ", "));
      g = ones_like(out);
    } else {
      ADEPT_CHECK(g.sizes() == out.sizes(), ShapeError,
                  "{}: mismatch in shape: grad_output[{}] has shape [{}] and output[{}] has shape [{}]", op, i,
                  fmt::join(g.sizes(), ", "), i, fmt::join(out.sizes(), ", "));
    }
    grads.push_back(g);
  }
  return grads;
}

}  // namespace

void queue_callback(std::function<void()> fn) {
  ADEPT_CHECK(t_final_callbacks != nullptr, AutogradError,
              "queue_callback: no backward pass is running on this thread (call it from a hook or a backward function)");
  t_final_callbacks->push_back(std::move(fn));
}

std::vector<Tensor> reachable_leaves(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> leaves;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  for (const Tensor& o : outputs) {
    if (!o.defined()) continue;
    Edge e = gradient_edge(o);
    if (e.valid() && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) leaves.emplace_back(acc->leaf());
    for (const Edge& e : n->next_edges) {
      if (e.valid() && seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
  return leaves;
}

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs, bool retain_graph,
              bool create_graph) {
  auto grads = make_root_grads(outputs, grad_outputs, "backward");
  std::vector<Edge> roots;
  for (const Tensor& o : outputs) roots.push_back(gradient_edge(o));
  run_backward(roots, grads, retain_graph || create_graph, create_graph, {}, nullptr);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                         bool create_graph, bool allow_unused) {
  auto grads = make_root_grads(outputs, grad_outputs, "autograd.grad");
  std::vector<Edge> roots;
  for (const Tensor& o : outputs) roots.push_back(gradient_edge(o));
  std::vector<Capture> captures;
  std::vector<std::shared_ptr<Node>> hold;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ADEPT_CHECK(inputs[i].requires_grad(), AutogradError,
                "autograd.grad: input {} does not require grad", i);
    Edge e = gradient_edge(inputs[i]);
    hold.push_back(e.fn);
    captures.push_back({e.fn.get(), e.input_nr, i});
  }
  std::vector<Tensor> result(inputs.size());
  run_backward(roots, grads, retain_graph.value_or(create_graph), create_graph, captures, &result);
  for (size_t i = 0; i < result.size(); ++i) {
    ADEPT_CHECK(result[i].defined() || allow_unused, AutogradError,
                "autograd.grad: one of the differentiated tensors (input {}) appears to not have been used in "
                "the graph. Set allow_unused=true if this is the desired behavior.", i);
  }
  return result;
}

}  // namespace adept::autograd
