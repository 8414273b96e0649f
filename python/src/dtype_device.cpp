// adept.dtype (adept.float32, adept.long, ...) and adept.device ("cpu", "vulkan:0").
#include "common.h"

#include "adept/supported.h"

namespace adept::python {

void init_dtype_device(py::module_& m) {
  py::enum_<Dtype> dt(m, "dtype", "Element type of a tensor (torch.dtype).");
  const std::pair<const char*, Dtype> names[] = {
      {"bool", kBool}, {"uint8", kUInt8}, {"int32", kInt32}, {"int64", kInt64},
      {"float16", kFloat16}, {"bfloat16", kBFloat16}, {"float32", kFloat32}, {"float64", kFloat64}};
  for (const auto& [name, d] : names) dt.value(name, d);
  // enum_ already defines __repr__/__str__; replace them rather than adding overloads.
  for (const char* name : {"__repr__", "__str__"}) {
    dt.attr(name) = py::cpp_function([](Dtype d) { return std::string("adept.") + dtype_name(d); }, py::name(name),
                                     py::is_method(dt));
  }
  dt.def_property_readonly("is_floating_point", [](Dtype d) { return is_floating_point(d); })
      .def_property_readonly("is_signed", [](Dtype d) { return d != kBool && d != kUInt8; })
      .def_property_readonly("itemsize", [](Dtype d) { return element_size(d); })
      .def("__reduce__", [](Dtype d) {
        // Rebuilt by a pure-Python function (pybind11 functions cannot be pickled by reference).
        return py::make_tuple(py::module_::import("adept").attr("_dtype_from_name"), py::make_tuple(dtype_name(d)));
      });
  // Module attributes, with torch's aliases.
  for (const auto& [name, d] : names) m.attr(name) = py::cast(d);
  const std::pair<const char*, Dtype> aliases[] = {
      {"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16}, {"int", kInt32}, {"long", kInt64}};
  for (const auto& [name, d] : aliases) m.attr(name) = py::cast(d);
  m.def("get_default_dtype", &default_float_dtype, "The dtype of tensors made from Python floats.");
  m.def("set_default_dtype", [](Dtype d) {
    if (!is_floating_point(d)) throw py::type_error("only floating-point types are supported as the default type");
    set_default_float_dtype(d);
  }, py::arg("d"));
  m.def("promote_types", &promote_types, py::arg("type1"), py::arg("type2"));
  m.def("supported", [](const std::string& op, const py::handle& device, Dtype dtype, bool backward) {
    return supported(op, device_arg(device), dtype, backward);
  }, py::arg("op"), py::arg("device"), py::arg("dtype") = kFloat32, py::arg("backward") = false,
        "Whether `device` has every kernel op `op` (its PyTorch name) needs for `dtype` (and its backward), "
        "from the kernel registry; ValueError for a name not in the op table.");
  m.def("missing_kernels", [](const std::vector<std::string>& ops, const py::handle& device, Dtype dtype,
                               bool backward) {
    return missing_kernels(ops, device_arg(device), dtype, backward);
  }, py::arg("ops"), py::arg("device"), py::arg("dtype") = kFloat32, py::arg("backward") = false,
        "The kernels `ops` lack on `device` for `dtype`, one 'op: kernel (dtype)' string each.");
  m.def("op_table_names", &op_table_names, "The names of every op in the op table, in table order.");

  py::class_<Device> dev(m, "device", "Where a tensor's storage lives (torch.device).");
  dev.def(py::init<const std::string&>(), py::arg("type"))
      .def(py::init([](const std::string& type, int index) { return Device(type + ":" + std::to_string(index)); }),
           py::arg("type"), py::arg("index"))
      .def_property_readonly("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "vulkan"; })
      .def_property_readonly("index", [](const Device& d) -> py::object {
        return d.index < 0 ? py::none() : py::cast(d.index);
      })
      .def("__str__", &Device::str)
      .def("__repr__", [](const Device& d) {
        std::string r = std::string("device(type='") + (d.is_cpu() ? "cpu" : "vulkan") + "'";
        if (d.index >= 0) r += ", index=" + std::to_string(d.index);
        return r + ")";
      })
      .def("__eq__", [](const Device& a, const py::object& b) -> py::object {
        if (!py::isinstance<Device>(b) && !py::isinstance<py::str>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        return py::bool_(a == device_arg(b));
      })
      .def("__hash__", [](const Device& d) { return py::hash(py::str(d.str())); })
      .def(py::pickle([](const Device& d) { return d.str(); }, [](const std::string& s) { return Device(s); }));
}

}  // namespace adept::python
