// The model zoo bound into `_C._models`: the YOLO11 detector (an nn.Module whose forward returns
// the three raw maps in training mode and the decoded predictions in eval mode) and its summary.
#include "adept/models/yolo/yolo11.h"
#include "nn_module.h"

namespace adept::python {

namespace {

using models::yolo::Yolo11;

py::dict summary_py(Yolo11& model, int64_t imgsz) {
  models::yolo::ModelSummary s = models::yolo::summary(model, imgsz);
  py::list layers;
  for (const auto& r : s.layers) {
    py::dict row;
    row["index"] = r.index;
    row["from"] = r.from.size() == 1 ? py::cast(r.from[0]) : py::cast(r.from);
    row["n"] = r.n;
    row["params"] = r.params;
    row["module"] = r.module;
    row["args"] = r.args;
    row["gflops"] = r.gflops;
    layers.append(row);
  }
  py::dict d;
  d["layers"] = layers;
  d["params"] = s.params;
  d["gradients"] = s.trainable;
  d["gflops"] = s.gflops;
  d["imgsz"] = s.imgsz;
  d["table"] = s.table();
  return d;
}

}  // namespace

void init_models(py::module_& m) {
  py::module_ mm = m.def_submodule("_models", "Model zoo (C++ side; use adept.models).");
  py::class_<Yolo11, nn::Module, std::shared_ptr<Yolo11>>(
      mm, "Yolo11", py::dynamic_attr(),
      "YOLO11 detector (scales n/s/m/l/x) with Ultralytics' state-dict keys model.<i>...")
      .def(py::init<const std::string&, int64_t>(), py::arg("scale") = "n", py::arg("nc") = 80)
      .def("forward", [](Yolo11& model, const Tensor& x) -> py::object {
        if (!model.is_training()) return py::cast(model.forward(x));
        return py::cast(model.forward_maps(x));
      }, py::arg("x"),
           "Training mode: the raw maps [(B, 64 + nc, H/8, W/8), (.., H/16, W/16), (.., H/32, W/32)]; eval mode: "
           "decoded predictions (B, 4 + nc, A), boxes cx, cy, w, h in input pixels then sigmoid class scores.")
      .def("forward_maps", &Yolo11::forward_maps, py::arg("x"), "The three raw head maps (either mode).")
      .def_readonly("scale", &Yolo11::scale)
      .def_readonly("nc", &Yolo11::nc)
      .def_property_readonly("stride", [](const Yolo11& model) { return model.detect->stride; })
      .def_property_readonly("reg_max", [](const Yolo11& model) { return model.detect->reg_max; });
  mm.def("summary", &summary_py, py::arg("model"), py::arg("imgsz") = 640,
         "Per-layer index, from, n, params, module, args and GFLOPs, with totals and a printable table.");
}

}  // namespace adept::python
