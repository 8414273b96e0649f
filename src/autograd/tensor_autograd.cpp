// The Tensor handle's autograd accessors: requires_grad, grad, grad_fn, retain_grad, backward, detach.
#include <atomic>
#include <memory>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "autograd/node.h"

namespace adept {

bool Tensor::requires_grad() const {
  autograd::refresh_view(checked());
  auto* m = checked()->autograd.get();
  return m && m->requires_grad;
}

Tensor& Tensor::requires_grad_(bool r) {
  auto* impl = checked();
  if (!r && !is_leaf()) {
    throw AutogradError("requires_grad_: you can only change requires_grad flags of leaf variables. "
                        "Use detach() to get a tensor that does not require grad.");
  }
  ADEPT_CHECK(!r || is_floating_point(), DtypeError,
              "requires_grad_: only tensors of floating point dtype can require gradients, got {}",
              dtype_name(dtype()));
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  impl->autograd->requires_grad = r;
  return *this;
}

Tensor Tensor::grad() const {
  auto* m = checked()->autograd.get();
  return m && m->grad ? *m->grad : Tensor();
}

void Tensor::set_grad(const Tensor& g) {
  auto* impl = checked();
  if (g.defined()) {
    ADEPT_CHECK(g.sizes() == sizes(), ShapeError, "assigned grad has shape {} but the tensor has shape {}",
                fmt::join(g.sizes(), ", "), fmt::join(sizes(), ", "));
    ADEPT_CHECK(g.dtype() == dtype(), DtypeError, "assigned grad has dtype {} but the tensor has dtype {}",
                dtype_name(g.dtype()), dtype_name(dtype()));
  }
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  impl->autograd->grad = g.defined() ? std::make_shared<Tensor>(g) : nullptr;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  autograd::refresh_view(checked());
  auto* m = checked()->autograd.get();
  return m ? m->grad_fn : nullptr;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

void Tensor::retain_grad() {
  ADEPT_CHECK(requires_grad(), AutogradError, "retain_grad: can't retain_grad on a tensor that has requires_grad=False");
  if (is_leaf()) return;
  auto* m = checked()->autograd.get();
  if (m->retains_grad) return;
  m->retains_grad = true;
  m->grad_fn->retained.emplace_back(m->output_nr, impl_);
}

bool Tensor::retains_grad() const {
  auto* m = checked()->autograd.get();
  return m && m->retains_grad;
}

uint64_t Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) {
  ADEPT_CHECK(requires_grad(), AutogradError,
              "register_post_accumulate_grad_hook: cannot register a hook on a tensor that doesn't require gradient");
  ADEPT_CHECK(is_leaf(), AutogradError,
              "register_post_accumulate_grad_hook: post accumulate grad hooks cannot be registered on non-leaf tensors");
  ADEPT_CHECK(hook != nullptr, ValueError, "register_post_accumulate_grad_hook: the hook is empty");
  static std::atomic<uint64_t> next_id{1};
  const uint64_t id = next_id++;
  checked()->autograd->post_accumulate_grad_hooks.emplace_back(id, std::move(hook));
  return id;
}

void Tensor::remove_post_accumulate_grad_hook(uint64_t id) {
  auto* m = checked()->autograd.get();
  if (!m) return;
  auto& hooks = m->post_accumulate_grad_hooks;
  std::erase_if(hooks, [id](const auto& h) { return h.first == id; });
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

Tensor Tensor::detach() const {
  auto* src = checked();
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = src->storage;
  impl->sizes = src->sizes;
  impl->strides = src->strides;
  impl->storage_offset = src->storage_offset;
  impl->dtype = src->dtype;
  impl->is_view = true;
  return Tensor(impl);
}

Tensor& Tensor::detach_() {
  auto* impl = checked();
  if (impl->autograd) {
    impl->autograd->grad_fn = nullptr;
    impl->autograd->requires_grad = false;
  }
  return *this;
}

}  // namespace adept
