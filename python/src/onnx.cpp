// adept._C._onnx: ONNX import (include/adept/onnx.h). The imported model is an nn.Module whose
// forward(*inputs) returns one tensor for a one-output graph, else a tuple in graph-output order;
// adept::onnx::UnsupportedError becomes adept.onnx.UnsupportedError (a NotImplementedError) with the
// unsupported (op_type, domain, opset, node, reason) tuples in `.items`.
#include "adept/onnx.h"
#include "nn_module.h"

namespace adept::python {

namespace {
PyObject* g_unsupported = nullptr;  // adept.onnx.UnsupportedError, created at import
}

void init_onnx(py::module_& m) {
  py::module_ om = m.def_submodule("_onnx", "ONNX import (C++ side; use adept.onnx).");
  py::object base = m.attr("Error");
  py::tuple bases = py::make_tuple(base, py::reinterpret_borrow<py::object>(PyExc_NotImplementedError));
  g_unsupported = PyErr_NewExceptionWithDoc("adept.onnx.UnsupportedError",
                                            "The model uses ops or element types the importer does not implement; "
                                            "`items` lists every one as (op_type, domain, opset, node, reason).",
                                            bases.ptr(), nullptr);
  if (!g_unsupported) throw py::error_already_set();
  om.attr("UnsupportedError") = py::reinterpret_borrow<py::object>(g_unsupported);
  // Registered after init_errors' translator, so tried before it (pybind11 tries the newest first).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const onnx::UnsupportedError& e) {
      py::gil_scoped_acquire gil;
      py::list items;
      for (const auto& u : e.items()) items.append(py::make_tuple(u.op_type, u.domain, u.opset, u.node, u.reason));
      py::object err = py::reinterpret_borrow<py::object>(g_unsupported)(e.what());
      err.attr("items") = items;
      PyErr_SetObject(g_unsupported, err.ptr());
    }
  });

  py::class_<onnx::Model, nn::Module, std::shared_ptr<onnx::Model>>(
      om, "OnnxModel", py::dynamic_attr(),
      "An imported ONNX graph as an nn.Module: initializers are parameters (trainable floats) or buffers under "
      "their ONNX names; forward(*inputs) runs the graph with Adept ops (any device, autograd).")
      .def("forward", [](onnx::Model& model, const py::args& args) -> py::object {
        std::vector<Tensor> inputs;
        for (const auto& a : args) inputs.push_back(a.cast<Tensor>());
        std::vector<Tensor> out = model.forward_all(inputs);
        if (out.size() == 1) return py::cast(out[0]);
        return py::tuple(py::cast(out));
      }, "Runs the graph on its inputs (graph order): one tensor for a one-output graph, else a tuple.")
      .def_property_readonly("input_names", &onnx::Model::input_names)
      .def_property_readonly("output_names", &onnx::Model::output_names)
      .def_property_readonly("opset", &onnx::Model::opset);
  om.def("load", &onnx::load, py::arg("path"), "Loads an ONNX model file.");
  om.def("load_bytes", [](const py::bytes& b) { return onnx::load_bytes(std::string(b)); }, py::arg("data"),
         "Loads an ONNX model from the bytes of a serialized ModelProto.");
}

}  // namespace adept::python
