// Tensor metadata, autograd attributes, conversions, copies, views and Python protocols
// (len, iter, bool, float, int, index, repr).
#include <functional>

#include "common.h"

namespace adept::python {

namespace {

py::tuple to_tuple(const Shape& s) { return py::cast(s); }

/// Tensor.to(dtype) / to(device) / to(device, dtype) / to(other) / to(dtype=, device=, copy=).
Tensor to_any(const Tensor& self, const py::args& args, const py::kwargs& kw) {
  std::optional<Dtype> dtype;
  std::optional<Device> device;
  bool copy = false;
  auto take = [&](const py::handle& h) {
    if (py::isinstance<Dtype>(h)) dtype = h.cast<Dtype>();
    else if (py::isinstance<Tensor>(h)) { const Tensor& o = h.cast<const Tensor&>(); dtype = o.dtype(); device = o.device(); }
    else if (py::isinstance<Device>(h) || py::isinstance<py::str>(h)) device = device_arg(h);
    else if (PyBool_Check(h.ptr())) copy = h.cast<bool>();  // to(dtype, non_blocking, copy) positional bools
    else throw py::type_error(std::string("to() received an invalid argument of type ") + Py_TYPE(h.ptr())->tp_name);
  };
  for (const py::handle& a : args) take(a);
  for (const auto& [k, v] : kw) {
    std::string key = k.cast<std::string>();
    if (v.is_none()) continue;
    if (key == "dtype") dtype = v.cast<Dtype>();
    else if (key == "device") device = device_arg(v);
    else if (key == "copy") copy = v.cast<bool>();
    else if (key != "non_blocking" && key != "memory_format") throw py::type_error("to() got an unexpected keyword argument '" + key + "'");
  }
  return self.to(device.value_or(self.device()), dtype.value_or(self.dtype()), copy);
}

/// Nested Python lists of `t`'s elements (a number for a 0-d tensor).
py::object tolist(const Tensor& t) {
  std::vector<Scalar> flat = t.tolist_flat();
  if (t.dim() == 0) return py::cast(flat.at(0));
  size_t pos = 0;
  std::function<py::list(int64_t)> build = [&](int64_t d) {
    py::list out;
    for (int64_t i = 0; i < t.size(d); ++i) {
      if (d == t.dim() - 1) out.append(py::cast(flat[pos++]));
      else out.append(build(d + 1));
    }
    return out;
  };
  return build(0);
}

Scalar single_item(const Tensor& t, const char* what) {
  if (t.numel() != 1) throw py::value_error(std::string("only one element tensors can be converted to Python ") + what);
  return t.item();
}

py::list tensor_list(const std::vector<Tensor>& ts) { return py::cast(ts); }

}  // namespace

void init_tensor(py::module_& m, TensorClass& cls) {
  cls.attr("__module__") = "adept";
  // ---- metadata ----
  cls.def_property_readonly("shape", [](const Tensor& t) { return to_tuple(t.sizes()); })
      .def("size", [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
        if (dim) return py::cast(t.size(*dim));
        return to_tuple(t.sizes());
      }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor& t, std::optional<int64_t> dim) -> py::object {
        if (dim) return py::cast(t.stride(*dim));
        return to_tuple(t.strides());
      }, py::arg("dim") = py::none())
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.device().is_cpu(); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def_property_readonly("itemsize", &Tensor::element_size)
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.numel() * static_cast<int64_t>(t.element_size()); })
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", [](const Tensor& t) { return t.is_contiguous(); })
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def_property_readonly("_version", &Tensor::_version)
      .def("__repr__", &Tensor::str)
      .def("__format__", [](const Tensor& t, const std::string& spec) -> py::object {
        if (t.dim() == 0) return py::module_::import("builtins").attr("format")(py::cast(t.item()), spec);
        return py::str(t.str());
      })
      .def("__hash__", [](const Tensor& t) { return reinterpret_cast<intptr_t>(t.impl()); });

  // ---- conversions and copies ----
  def_both(m, cls, "clone", [](const Tensor& t, const py::object&) { return t.clone(); },
           py::arg("memory_format") = py::none());
  cls.def("to", &to_any)
      .def("cpu", &Tensor::cpu)
      .def("type_as", [](const Tensor& t, const Tensor& o) { return t.to(o.dtype()); }, py::arg("other"))
      .def("contiguous", [](const Tensor& t, const py::object&) { return t.contiguous(); }, py::arg("memory_format") = py::none())
      .def("item", [](const Tensor& t) { return t.item(); })
      .def("tolist", &tolist)
      .def("__len__", [](const Tensor& t) {
        if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return t.size(0);
      })
      .def("__iter__", [](const Tensor& t) {
        if (t.dim() == 0) throw py::type_error("iteration over a 0-d tensor");
        return py::iter(tensor_list(t.unbind(0)));
      })
      .def("__bool__", [](const Tensor& t) {
        if (t.numel() != 1) {
          throw adept::Error(fmt::format("Boolean value of Tensor with {} values is ambiguous",
                                         t.numel() == 0 ? "no" : "more than one"));
        }
        return t.item().to_bool();
      })
      .def("__float__", [](const Tensor& t) { return single_item(t, "scalars").to_double(); })
      .def("__int__", [](const Tensor& t) { return single_item(t, "scalars").to_int64(); })
      .def("__index__", [](const Tensor& t) {
        if (t.numel() != 1 || !is_integral(t.dtype(), true)) {
          throw py::type_error("only integer tensors of a single element can be converted to an index");
        }
        return t.item().to_int64();
      });
  const std::pair<const char*, Dtype> casts[] = {{"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16},
                                                 {"bfloat16", kBFloat16}, {"long", kInt64}, {"int", kInt32},
                                                 {"byte", kUInt8}, {"bool", kBool}};
  for (const auto& [name, d] : casts) {
    Dtype dd = d;
    cls.def(name, [dd](const Tensor& t) { return t.to(dd); });
  }

  // ---- views (methods take sizes variadically, as torch) ----
  cls.def("view", [](const Tensor& t, const py::args& s) { return t.view(sizes_arg(s, py::none(), "view")); })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return t.view(o.sizes()); }, py::arg("other"))
      .def("reshape", [](const Tensor& t, const py::args& s) { return t.reshape(sizes_arg(s, py::none(), "reshape")); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return t.reshape(o.sizes()); }, py::arg("other"))
      .def("permute", [](const Tensor& t, const py::args& s) { return t.permute(sizes_arg(s, py::none(), "permute")); })
      .def("expand", [](const Tensor& t, const py::args& s) { return t.expand(sizes_arg(s, py::none(), "expand")); })
      .def("expand_as", &Tensor::expand_as, py::arg("other"))
      .def("t", &Tensor::t)
      .def_property_readonly("T", [](const Tensor& t) {
        Shape dims;
        for (int64_t i = t.dim() - 1; i >= 0; --i) dims.push_back(i);
        return t.permute(dims);
      })
      .def_property_readonly("mT", [](const Tensor& t) { return t.transpose(-2, -1); });
  m.def("reshape", [](const Tensor& t, const Shape& s) { return t.reshape(s); }, py::arg("input"), py::arg("shape"));
  m.def("permute", [](const Tensor& t, const Shape& s) { return t.permute(s); }, py::arg("input"), py::arg("dims"));
  m.def("t", &Tensor::t, py::arg("input"));
  m.def("is_tensor", [](const py::handle& h) { return py::isinstance<Tensor>(h); }, py::arg("obj"));
  m.def("numel", &Tensor::numel, py::arg("input"));
  m.def("is_floating_point", &Tensor::is_floating_point, py::arg("input"));
}

}  // namespace adept::python
