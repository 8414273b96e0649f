// Autograd nodes: recording ops into the graph, saved-tensor version checks, leaf accumulation.
#include "autograd/node.h"

#include <atomic>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "adept/profiler.h"

namespace adept::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
}

Node::Node() : sequence_nr(g_next_sequence_nr.fetch_add(1)), scope(profiler::current_state().scope) {}

SavedTensor::SavedTensor(const Tensor& t) : tensor_(t), version_(t.defined() ? t._version() : 0) {}

namespace {
// The FunctionNode whose backward closure runs on this thread (for SavedTensor::output).
thread_local Node* running_node = nullptr;
}  // namespace

SavedTensor SavedTensor::output(const Tensor& out, uint32_t output_nr) {
  SavedTensor s(out.detach());
  s.is_output_ = true;
  s.output_nr_ = output_nr;
  return s;
}

Tensor SavedTensor::get() const {
  if (tensor_.defined() && tensor_._version() != version_) {
    auto fn = tensor_.grad_fn();
    throw AutogradError(fmt::format(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [{}{}] is at version {}; expected version {} instead",
        dtype_name(tensor_.dtype()), fmt::format(" [{}]", fmt::join(tensor_.sizes(), ", ")),
        tensor_._version(), version_));
  }
  if (is_output_ && running_node != nullptr && is_grad_enabled() && tensor_.defined()) {
    Tensor t = tensor_.detach();
    auto* impl = t.impl();
    impl->autograd = std::make_unique<AutogradMeta>();
    impl->autograd->requires_grad = true;
    impl->autograd->grad_fn = running_node->shared_from_this();
    impl->autograd->output_nr = output_nr_;
    return t;
  }
  return tensor_;
}

std::vector<Tensor> FunctionNode::apply(std::vector<Tensor>&& grads) {
  if (released_) {
    throw AutogradError(fmt::format(
        "{}: trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed). Specify retain_graph=true on the first backward call "
        "if you need to backward through the graph a second time.", name_));
  }
  struct Running {  // marks this node as the one whose saved outputs get() re-attaches
    Node* prev;
    explicit Running(Node* n) : prev(running_node) { running_node = n; }
    ~Running() { running_node = prev; }
  } running(this);
  return fn_(grads);
}

void accumulate_into_grad(TensorImpl* t, const Tensor& g) {
  if (!t->autograd) t->autograd = std::make_unique<AutogradMeta>();
  auto& slot = t->autograd->grad;
  Tensor gg = g;
  if (gg.sizes() != t->sizes) {
    throw AutogradError(fmt::format("AccumulateGrad: gradient of shape [{}] for a tensor of shape [{}]",
                                    fmt::join(gg.sizes(), ", "), fmt::join(t->sizes, ", ")));
  }
  if (gg.dtype() != t->dtype) gg = gg.to(t->dtype);
  if (!slot || !slot->defined()) {
    slot = std::make_shared<Tensor>(is_grad_enabled() ? gg.clone() : gg.detach().clone());
  } else if (is_grad_enabled()) {
    *slot = add(*slot, gg);  // create_graph: keep the graph of the gradient
  } else {
    slot->add_(gg);
  }
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  if (!grads.at(0).defined()) return {};
  accumulate_into_grad(leaf_.get(), grads[0]);
  if (leaf_->autograd && !leaf_->autograd->post_accumulate_grad_hooks.empty()) {
    auto hooks = leaf_->autograd->post_accumulate_grad_hooks;  // a hook may remove itself
    const Tensor leaf(leaf_);
    for (const auto& [id, hook] : hooks) hook(leaf);
  }
  return {};
}

void refresh_view(TensorImpl* impl) {
  if (!impl->view_base) return;
  const uint64_t version = impl->storage->version();
  if (version == impl->view_version) return;
  impl->view_version = version;
  const auto* bm = impl->view_base->autograd.get();
  if (!bm || !bm->requires_grad) return;
  EnableGradGuard grad_on;
  Tensor regen = as_strided(Tensor(impl->view_base), impl->sizes, impl->strides, impl->storage_offset);
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  impl->autograd->requires_grad = true;
  impl->autograd->grad_fn = regen.grad_fn();
  impl->autograd->output_nr = 0;
}

Edge gradient_edge(const Tensor& t) {
  refresh_view(t.impl());
  auto* m = t.impl()->autograd.get();
  if (!m || !m->requires_grad) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  auto acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    acc->outputs.push_back({t.sizes(), t.dtype(), t.device()});
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

bool needs_grad(std::initializer_list<const Tensor*> inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (t->defined() && t->requires_grad()) return true;
  }
  return false;
}

bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!is_grad_enabled()) return false;
  for (const Tensor& t : inputs) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

void record(const std::string& name, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            BackwardFn fn) {
  if (!needs_grad(inputs)) return;
  auto node = std::make_shared<FunctionNode>(name, std::move(fn));
  node->next_edges.reserve(inputs.size());
  for (const Tensor& in : inputs) node->next_edges.push_back(in.defined() ? gradient_edge(in) : Edge{});
  uint32_t i = 0;
  for (const Tensor& out : outputs) {
    node->outputs.push_back({out.sizes(), out.dtype(), out.device()});
    auto* impl = out.impl();
    if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
    // Integer outputs (argmax indices ...) never require grad.
    impl->autograd->requires_grad = is_floating_point(out.dtype());
    impl->autograd->grad_fn = impl->autograd->requires_grad ? node : nullptr;
    impl->autograd->output_nr = i++;
  }
}

std::string node_name(const Node& node) { return node.name(); }

}  // namespace adept::autograd
