// Autograd from Python: Tensor.requires_grad/grad/grad_fn/backward/detach/retain_grad, grad mode,
// and adept.autograd.{backward, grad} (the Python package wraps the _C functions).
#include "common.h"

#include <pybind11/functional.h>

#include "adept/set_data.h"

namespace adept::python {

namespace {

/// A tensor's grad_fn as seen from Python: its name and identity.
struct GradFn {
  std::shared_ptr<autograd::Node> node;
  std::string name() const { return autograd::node_name(*node); }
};

std::vector<Tensor> tensors_or_none(const py::object& seq, size_t n, const char* what) {
  std::vector<Tensor> out;
  if (seq.is_none()) return out;
  for (const py::handle& h : seq) out.push_back(h.is_none() ? Tensor() : h.cast<Tensor>());
  if (out.size() != n) {
    throw adept::ValueError(fmt::format("{}: got {} gradients for {} outputs", what, out.size(), n));
  }
  return out;
}

/// What Tensor.register_post_accumulate_grad_hook returns (torch.utils.hooks.RemovableHandle).
struct RemovableHandle {
  std::weak_ptr<TensorImpl> tensor;
  uint64_t id;
  void remove() const {
    if (auto impl = tensor.lock()) Tensor(impl).remove_post_accumulate_grad_hook(id);
  }
};

}  // namespace

void init_autograd(py::module_& m, TensorClass& cls) {
  py::class_<GradFn>(m, "Node", "A node of the autograd graph (a tensor's grad_fn).")
      .def("name", &GradFn::name)
      .def("__repr__", [](const GradFn& f) {
        return fmt::format("<{} object at {}>", f.name(), static_cast<const void*>(f.node.get()));
      })
      .def("__eq__", [](const GradFn& a, const GradFn& b) { return a.node == b.node; }, py::is_operator())
      .def("__hash__", [](const GradFn& f) { return reinterpret_cast<intptr_t>(f.node.get()); });

  py::class_<RemovableHandle>(m, "RemovableHandle", "Unregisters a hook with remove() (torch.utils.hooks).")
      .def("remove", &RemovableHandle::remove)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](const RemovableHandle& h, py::args) { h.remove(); });

  cls.def_property("requires_grad", &Tensor::requires_grad,
                   [](Tensor& t, bool r) { t.requires_grad_(r); })
      .def("requires_grad_", [](py::object self, bool r) { self.cast<Tensor&>().requires_grad_(r); return self; },
           py::arg("requires_grad") = true)
      .def_property("grad", [](const Tensor& t) { return maybe_tensor(t.grad()); },
                    [](Tensor& t, const std::optional<Tensor>& g) { t.set_grad(g.value_or(Tensor())); })
      .def_property_readonly("grad_fn", [](const Tensor& t) -> py::object {
        auto fn = t.grad_fn();
        return fn ? py::cast(GradFn{fn}) : py::none();
      })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def("retain_grad", &Tensor::retain_grad)
      .def("register_post_accumulate_grad_hook", [](Tensor& t, std::function<void(const Tensor&)> hook) {
        return RemovableHandle{t.impl_ptr(), t.register_post_accumulate_grad_hook(std::move(hook))};
      }, py::arg("hook"),
         "Registers hook(tensor), run after a backward accumulated a gradient into this leaf's .grad. Returns a "
         "handle whose remove() unregisters it. AutogradError for a tensor that does not require grad or is not a "
         "leaf.")
      .def("detach", &Tensor::detach)
      .def("detach_", [](py::object self) { self.cast<Tensor&>().detach_(); return self; })
      .def_property("data", &Tensor::detach, [](const Tensor& t, const Tensor& v) { set_data(t, v); })
      .def("backward", [](const Tensor& t, const std::optional<Tensor>& gradient, std::optional<bool> retain_graph,
                          bool create_graph, const py::object& inputs) {
        if (!inputs.is_none()) throw py::type_error("backward: the inputs argument is not supported");
        t.backward(gradient.value_or(Tensor()), retain_graph.value_or(create_graph), create_graph);
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
         py::arg("inputs") = py::none(),
         "Accumulates d(self)/d(leaf) into the .grad of the leaves (gradient defaults to 1 for one element).");

  m.def("_queue_callback", [](std::function<void()> fn) { autograd::queue_callback(std::move(fn)); },
        py::arg("callback"), "Runs callback() when the running backward pass has finished (queue_callback).");
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled, py::arg("mode"));
  m.def("_autograd_backward", [](const std::vector<Tensor>& outputs, const py::object& grads,
                                 std::optional<bool> retain_graph, bool create_graph) {
    autograd::backward(outputs, tensors_or_none(grads, outputs.size(), "backward"),
                       retain_graph.value_or(create_graph), create_graph);
  }, py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = py::none(),
     py::arg("create_graph") = false);
  m.def("_autograd_grad", [](const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                             const py::object& grads, std::optional<bool> retain_graph, bool create_graph,
                             bool allow_unused) {
    std::vector<Tensor> g = autograd::grad(outputs, inputs, tensors_or_none(grads, outputs.size(), "grad"),
                                           retain_graph, create_graph, allow_unused);
    py::tuple out(g.size());
    for (size_t i = 0; i < g.size(); ++i) out[i] = maybe_tensor(g[i]);
    return out;
  }, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(), py::arg("retain_graph") = py::none(),
     py::arg("create_graph") = false, py::arg("allow_unused") = false);
}

}  // namespace adept::python
