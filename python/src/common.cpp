// Argument parsing helpers shared by the binding files.
#include "common.h"

namespace adept::python {

namespace {
int64_t as_int(const py::handle& h, const char* what) {
  // A dtype has __index__ (pybind11 enum) but is not a size: torch.zeros(torch.float32) is a TypeError.
  if (PyBool_Check(h.ptr()) || PyFloat_Check(h.ptr()) || py::isinstance<Dtype>(h) || !py::hasattr(h, "__index__")) {
    throw py::type_error(std::string(what) + " must be a sequence of ints, got an element of type " +
                         std::string(Py_TYPE(h.ptr())->tp_name));
  }
  return h.attr("__index__")().cast<int64_t>();
}
Shape int_list(const py::handle& seq, const char* what) {
  Shape out;
  for (py::handle item : seq) out.push_back(as_int(item, what));
  return out;
}
bool is_int_sequence(const py::handle& h) {
  return py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h);
}
}  // namespace

Shape sizes_arg(const py::args& args, const py::object& size_kw, const char* what) {
  if (!size_kw.is_none()) {
    if (args.size() != 0) throw py::type_error(std::string(what) + " given both positionally and as a keyword");
    return is_int_sequence(size_kw) ? int_list(size_kw, what) : Shape{as_int(size_kw, what)};
  }
  if (args.size() == 1 && is_int_sequence(args[0])) return int_list(args[0], what);
  return int_list(args, what);
}

Shape dims_arg(const py::handle& dim) {
  if (dim.is_none()) return {};
  if (is_int_sequence(dim)) return int_list(dim, "dim");
  return {as_int(dim, "dim")};
}

Device device_arg(const py::handle& h) {
  if (py::isinstance<Device>(h)) return h.cast<Device>();
  if (py::isinstance<py::str>(h)) return Device(h.cast<std::string>());
  throw py::type_error(std::string("expected an adept.device or a string, got ") + Py_TYPE(h.ptr())->tp_name);
}

bool is_ndarray(const py::handle& obj) {
  py::dict modules = py::module_::import("sys").attr("modules");
  if (!modules.contains("numpy")) return false;
  return py::isinstance(obj, modules["numpy"].attr("ndarray"));
}

TensorOptions make_options(std::optional<Dtype> dtype, std::optional<Device> device, bool requires_grad) {
  TensorOptions o;
  o.dtype = dtype;
  if (device) o.device = *device;
  o.requires_grad = requires_grad;
  return o;
}

py::object maybe_tensor(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

py::object values_indices(const char* name, const std::tuple<Tensor, Tensor>& vi) {
  return py::module_::import("adept.return_types").attr("_make")(name, std::get<0>(vi), std::get<1>(vi));
}

Tensor opt_tensor(const std::optional<Tensor>& t) { return t ? *t : Tensor(); }

py::module_ nn_submodule_of(py::module_& m) {
  if (py::hasattr(m, "_nn")) return m.attr("_nn").cast<py::module_>();
  return m.def_submodule("_nn", "Functional layers (torch.nn.functional's C++ side)");
}

Tensor wrap_operand(const Tensor& self, const Operand& o) {
  if (auto* t = std::get_if<Tensor>(&o)) return *t;
  const Scalar& s = std::get<Scalar>(o);
  return scalar_tensor(s, TensorOptions(result_type({self}, {s})).set_device(self.device()));
}

}  // namespace adept::python
