// Shared pieces of the nn.Module bindings: the trampoline that lets Python subclasses override
// forward/extra_repr/train and report their class name, the shared_ptr<Module> caster that keeps
// a module's Python object alive while C++ holds it, and helpers for binding layer classes.
// Include this (not only common.h) in every file that passes modules between C++ and Python.
#pragma once
#include <memory>
#include <string>

#include "adept/nn.h"
#include "common.h"

namespace adept::python {

/// Trampoline of Module and of every bound layer class: forward, extra_repr and train dispatch to a
/// Python override when the instance is a Python subclass; type_name is the Python class name.
template <class Base>
class PyModule : public Base {
 public:
  using Base::Base;

  /// A Python forward reached from C++ (a C++ container's forward) must return a Tensor: TypeError
  /// naming the module and the returned type otherwise.
  Tensor forward(const Tensor& input) override {
    py::gil_scoped_acquire gil;
    py::function override = py::get_override(static_cast<const Base*>(this), "forward");
    if (!override) return Base::forward(input);
    py::object out = override(input);
    if (!py::isinstance<Tensor>(out))
      throw py::type_error(this->type_name() + ".forward returned a " +
                           py::str(py::type::handle_of(out).attr("__name__")).cast<std::string>() +
                           " where the calling C++ module needs a Tensor");
    return out.cast<Tensor>();
  }
  std::string extra_repr() const override { PYBIND11_OVERRIDE(std::string, Base, extra_repr, ); }
  nn::Module& train(bool mode) override { PYBIND11_OVERRIDE(nn::Module&, Base, train, mode); }
  std::string type_name() const override {
    py::gil_scoped_acquire gil;
    const py::detail::type_info* ti = py::detail::get_type_info(typeid(Base));
    py::handle self = ti ? py::detail::get_object_handle(static_cast<const Base*>(this), ti) : py::handle();
    if (self) return py::str(py::type::handle_of(self).attr("__name__"));
    return Base::type_name();
  }
};

/// An int or a 1-/2-sequence of ints as an IntPair (torch's _pair); TypeError naming `what` otherwise.
nn::IntPair pair_arg(const py::handle& h, const char* what);

}  // namespace adept::python

namespace pybind11::detail {

/// std::shared_ptr<Module> from Python: the module's holder, wrapped in a shared_ptr whose deleter
/// owns a reference to the Python object. C++ containers (Sequential, a parent's children) hold
/// this, so the Python half of the module (a subclass's forward override, its __dict__, its
/// identity) lives as long as C++ holds the module, even after every Python name for it is gone.
/// The deleter takes the GIL to drop the reference (skipped once the interpreter is finalizing).
/// To Python: the existing Python object of that module when there is one (pybind11's registered
/// instances), else a new wrapper of the most-derived bound class.
template <>
struct type_caster<std::shared_ptr<adept::nn::Module>>
    : copyable_holder_caster<adept::nn::Module, std::shared_ptr<adept::nn::Module>> {
  using Base = copyable_holder_caster<adept::nn::Module, std::shared_ptr<adept::nn::Module>>;

  bool load(handle src, bool convert) {
    if (src.is_none()) {  // None: an absent module
      holder.reset();
      return true;
    }
    if (!Base::load(src, convert)) return false;
    auto* keep = new object(reinterpret_borrow<object>(src));
    holder = std::shared_ptr<adept::nn::Module>(holder.get(), [keep](adept::nn::Module*) {
      if (!Py_IsInitialized() || _Py_IsFinalizing()) return;  // the interpreter already freed it
      gil_scoped_acquire gil;
      delete keep;
    });
    return true;
  }
};

}  // namespace pybind11::detail
