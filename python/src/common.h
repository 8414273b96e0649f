// Shared pieces of the `adept._C` bindings: the Scalar type caster, argument parsing helpers
// (variadic sizes, `dim` as int or tuple, dtype/device options) and the per-area init functions.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "adept/adept.h"

namespace py = pybind11;

namespace adept::python {

using TensorClass = py::class_<Tensor>;
/// A Python operand that may be a tensor or a number (numbers use the Scalar overloads, so type
/// promotion treats them as PyTorch's wrapped numbers).
using Operand = std::variant<Tensor, Scalar>;

/// Sizes given as `f(2, 3)`, `f((2, 3))` or `f([2, 3])`; `size_kw` is the `size=` keyword (or None).
Shape sizes_arg(const py::args& args, const py::object& size_kw = py::none(), const char* what = "size");
/// A `dim` argument: None (all dims -> empty Shape), an int, or a sequence of ints.
Shape dims_arg(const py::handle& dim);
/// A device argument: an adept.device or a string such as "cpu" (DeviceError for unknown ones).
Device device_arg(const py::handle& h);
/// True when `obj` is a numpy.ndarray (without importing NumPy when it is not loaded).
bool is_ndarray(const py::handle& obj);
/// Creation options from the keyword arguments shared by creation functions.
TensorOptions make_options(std::optional<Dtype> dtype, std::optional<Device> device, bool requires_grad);
/// adept.tensor(data, ...): copies nested sequences of numbers, an ndarray or a tensor.
Tensor tensor_from_data(const py::handle& data, std::optional<Dtype> dtype, std::optional<Device> device,
                        bool requires_grad);
/// A Tensor, or None when undefined.
py::object maybe_tensor(const Tensor& t);
/// An optional tensor argument (None -> an undefined Tensor, which the C++ API reads as "absent").
Tensor opt_tensor(const std::optional<Tensor>& t);
/// A data::TensorDict (sample or batch) as a Python dict of tensors, and back (TypeError for a
/// non-dict or a non-tensor value).
py::dict tensor_dict_to_py(const data::TensorDict& d);
data::TensorDict tensor_dict_from_py(const py::handle& obj);
/// The `_C._nn` submodule (created by whichever nn binding runs first).
py::module_ nn_submodule_of(py::module_& m);
/// A namedtuple `adept.return_types.<name>(values, indices)` (torch.return_types).
py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& vi);
/// The number `s` as a 0-d tensor of the dtype an op on (self, s) computes in, for ops that only
/// take tensors (bitwise ops, reflected floor division ...).
Tensor wrap_operand(const Tensor& self, const Operand& o);

// One init function per area (module.cpp calls them in order).
void init_errors(py::module_& m);
void init_dtype_device(py::module_& m);
void init_tensor(py::module_& m, TensorClass& cls);
void init_creation(py::module_& m);
void init_ops(py::module_& m, TensorClass& cls);
void init_index_ops(py::module_& m, TensorClass& cls);
void init_indexing(TensorClass& cls);
void init_autograd(py::module_& m, TensorClass& cls);
void init_interop(py::module_& m, TensorClass& cls);
void init_vulkan(py::module_& m);
void init_cpu(py::module_& m);
void init_amp(py::module_& m);       // adept.amp (autocast state, GradScaler)
void init_profiler(py::module_& m);  // adept.profiler.record_function
void init_nn_norm_loss(py::module_& m);
void init_nn_conv(py::module_& m);
void init_nn_pooling(py::module_& m);
void init_nn_module(py::module_& m);          // nn.Module, Parameter, containers
void init_nn_modules_layers(py::module_& m);  // the layer classes (after init_nn_module)
void init_io(py::module_& m);
void init_nn_init(py::module_& m);  // nn.init and nn.utils (gradient clipping)
void init_optim(py::module_& m);    // optimizers, LR schedulers, ModelEMA
void init_data(py::module_& m);     // datasets, samplers, DataLoader worker pool
void init_vision(py::module_& m);   // detection datasets and collate (after init_data: Dataset base)
void init_models(py::module_& m);   // model zoo: YOLO11 (after init_nn_module: Module base)
void init_models_loss(py::module_& m);  // YOLO11 detection loss (after init_models: _models)
void init_models_metrics(py::module_& m);  // NMS, box_iou, scale_boxes, DetectionMetrics (after init_models)
void init_models_engine(py::module_& m);  // YOLO11 train/val/predict, LoadedModel (after init_models)
void init_distributed(py::module_& m);
void init_onnx(py::module_& m);  // ONNX import (after init_nn_module: Module base; after init_errors)

/// Binds `f` both as the module function `adept.name(input, ...)` and the method `Tensor.name(...)`.
template <class F, class... Extra>
void def_both(py::module_& m, TensorClass& cls, const char* name, F f, const Extra&... extra) {
  m.def(name, f, py::arg("input"), extra...);
  cls.def(name, f, extra...);
}

}  // namespace adept::python

namespace pybind11::detail {

/// Python bool/int/float (and NumPy scalars when conversion is allowed) <-> adept::Scalar.
template <> struct type_caster<adept::Scalar> {
  PYBIND11_TYPE_CASTER(adept::Scalar, const_name("Number"));

  bool load(handle src, bool convert) {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) { value = adept::Scalar(o == Py_True); return true; }
    if (PyLong_Check(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) throw pybind11::value_error("value does not fit in int64");
      value = adept::Scalar(static_cast<int64_t>(v));
      return true;
    }
    if (PyFloat_Check(o)) { value = adept::Scalar(PyFloat_AsDouble(o)); return true; }
    if (!convert || isinstance<adept::Tensor>(src)) return false;
    // NumPy scalars: np.bool_, integer types (__index__), floating types (__float__).
    std::string tname = Py_TYPE(o)->tp_name;
    if (tname == "numpy.bool_" || tname == "numpy.bool") { value = adept::Scalar(PyObject_IsTrue(o) == 1); return true; }
    if (hasattr(src, "__index__")) { value = adept::Scalar(static_cast<int64_t>(src.attr("__index__")().cast<long long>())); return true; }
    if (hasattr(src, "__float__") && !PySequence_Check(o)) { value = adept::Scalar(src.attr("__float__")().cast<double>()); return true; }
    return false;
  }

  static handle cast(const adept::Scalar& s, return_value_policy, handle) {
    if (s.is_bool()) return pybind11::bool_(s.to_bool()).release();
    if (s.is_integral()) return PyLong_FromLongLong(s.to_int64());
    return PyFloat_FromDouble(s.to_double());
  }
};

/// Optional device arguments accept None, adept.device or a string; an unknown device string raises
/// adept.DeviceError (a RuntimeError, as torch) rather than a signature mismatch.
template <> struct type_caster<std::optional<adept::Device>> {
  PYBIND11_TYPE_CASTER(std::optional<adept::Device>, const_name("Optional[Union[adept.device, str]]"));

  bool load(handle src, bool) {
    if (src.is_none()) { value = std::nullopt; return true; }
    if (!isinstance<str>(src) && !isinstance<adept::Device>(src)) return false;
    value = adept::python::device_arg(src);
    return true;
  }
  static handle cast(const std::optional<adept::Device>& d, return_value_policy p, handle parent) {
    if (!d) return none().release();
    return make_caster<adept::Device>::cast(*d, p, parent);
  }
};

}  // namespace pybind11::detail
