// Detection post-processing and metrics bound into `_C._models`: non_max_suppression, box_iou,
// scale_boxes and DetectionMetrics (results as a dict).
#include "adept/models/yolo/metrics.h"
#include "adept/models/yolo/nms.h"
#include "common.h"

namespace adept::python {

namespace {

using namespace models::yolo;

py::dict results_to_py(const DetectionResults& r) {
  py::dict d;
  d["map50"] = r.map50;
  d["map75"] = r.map75;
  d["map50_95"] = r.map50_95;
  d["mp"] = r.mp;
  d["mr"] = r.mr;
  d["best_conf"] = r.best_conf;
  d["fitness"] = r.fitness();
  d["images"] = r.images;
  d["instances"] = r.instances;
  d["iou_thresholds"] = py::cast(std::vector<double>(r.iou_thresholds.begin(), r.iou_thresholds.end()));
  d["classes"] = r.classes;
  d["n_images"] = r.n_images;
  d["n_instances"] = r.n_instances;
  py::list ap, rec;
  for (size_t c = 0; c < r.classes.size(); ++c) {
    ap.append(std::vector<double>(r.ap[c].begin(), r.ap[c].end()));
    rec.append(std::vector<double>(r.max_recall[c].begin(), r.max_recall[c].end()));
  }
  d["ap"] = ap;
  d["max_recall"] = rec;
  d["precision"] = r.precision;
  d["recall"] = r.recall;
  return d;
}

}  // namespace

void init_models_metrics(py::module_& m) {
  py::module_ mm = m.attr("_models").cast<py::module_>();
  mm.def(
      "non_max_suppression",
      [](const Tensor& prediction, double conf_thres, double iou_thres, std::optional<std::vector<int64_t>> classes,
         bool agnostic, bool multi_label, int64_t max_det, int64_t max_nms) {
        NmsOptions o;
        o.conf_thres = conf_thres;
        o.iou_thres = iou_thres;
        o.classes = classes.value_or(std::vector<int64_t>{});
        o.agnostic = agnostic;
        o.multi_label = multi_label;
        o.max_det = max_det;
        o.max_nms = max_nms;
        return non_max_suppression(prediction, o);
      },
      py::arg("prediction"), py::arg("conf_thres") = 0.25, py::arg("iou_thres") = 0.7, py::arg("classes") = py::none(),
      py::arg("agnostic") = false, py::arg("multi_label") = false, py::arg("max_det") = 300,
      py::arg("max_nms") = 30000,
      "NMS of decoded predictions (B, 4 + nc, A) -> list of B tensors (n, 6) [x1, y1, x2, y2, conf, cls].");
  mm.def("box_iou", &box_iou, py::arg("box1"), py::arg("box2"), py::arg("eps") = 1e-7,
         "Pairwise IoU of xyxy boxes (N, 4), (M, 4) -> (N, M).");
  mm.def(
      "scale_boxes",
      [](const Tensor& boxes, const std::vector<int64_t>& orig_shape, const std::optional<Tensor>& ratio_pad,
         const std::optional<std::vector<int64_t>>& input_shape) {
        ADEPT_CHECK(ratio_pad.has_value() != input_shape.has_value(), ValueError,
                    "scale_boxes: give exactly one of ratio_pad and input_shape");
        return ratio_pad ? scale_boxes(boxes, *ratio_pad, orig_shape) : scale_boxes(*input_shape, boxes, orig_shape);
      },
      py::arg("boxes"), py::arg("orig_shape"), py::arg("ratio_pad") = py::none(), py::arg("input_shape") = py::none(),
      "Boxes (n, >=4) xyxy from the letterboxed input back to the original (h, w) image, clipped.");
  py::class_<DetectionMetrics>(mm, "DetectionMetrics",
                               "COCO-style mAP accumulated per image (pycocotools' definition).")
      .def(py::init<int64_t>(), py::arg("max_dets") = 0)
      .def("update", &DetectionMetrics::update, py::arg("preds"), py::arg("targets"),
           "Adds one image: preds (n, 6) [x1, y1, x2, y2, conf, cls], targets (m, 5) [cls, x1, y1, x2, y2].")
      .def("compute", [](const DetectionMetrics& dm) { return results_to_py(dm.compute()); })
      .def("table",
           [](const DetectionMetrics& dm, const std::vector<std::string>& names) { return dm.compute().table(names); },
           py::arg("names") = std::vector<std::string>{})
      .def("reset", &DetectionMetrics::reset)
      .def_property_readonly("images", &DetectionMetrics::images);
}

}  // namespace adept::python
