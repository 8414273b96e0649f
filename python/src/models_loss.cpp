// The YOLO11 detection loss bound into `_C._models` (use adept.models.DetectionLoss): the loss
// callable on the raw head maps and targets, and the task-aligned assigner.
#include "adept/models/yolo/loss.h"
#include "adept/models/yolo/yolo11.h"
#include "common.h"

namespace adept::python {

void init_models_loss(py::module_& m) {
  using models::yolo::DetectionLoss;
  py::module_ mm = m.attr("_models").cast<py::module_>();
  py::class_<DetectionLoss>(mm, "DetectionLoss",
                            "YOLO11 (v8) detection loss: task-aligned assigner, CIoU box, DFL and BCE class losses.")
      .def(py::init<int64_t, std::vector<double>, int64_t>(), py::arg("nc"),
           py::arg("strides") = std::vector<double>{8.0, 16.0, 32.0}, py::arg("reg_max") = 16)
      .def(py::init([](const models::yolo::Yolo11& model) { return DetectionLoss(model); }), py::arg("model"))
      .def("__call__", &DetectionLoss::operator(), py::arg("maps"), py::arg("targets"),
           py::arg("imgsz") = std::nullopt,
           "maps: the raw head maps; targets (N, 6) = (image, class, cx, cy, w, h) normalised; imgsz (h, w). "
           "Returns (loss for backward (), detached items (3) = box, cls, dfl with gains applied).")
      .def_readonly("nc", &DetectionLoss::nc)
      .def_readonly("reg_max", &DetectionLoss::reg_max)
      .def_readonly("strides", &DetectionLoss::strides)
      .def_readwrite("box_gain", &DetectionLoss::box_gain)
      .def_readwrite("cls_gain", &DetectionLoss::cls_gain)
      .def_readwrite("dfl_gain", &DetectionLoss::dfl_gain)
      .def_readwrite("topk", &DetectionLoss::topk)
      .def_readwrite("alpha", &DetectionLoss::alpha)
      .def_readwrite("beta", &DetectionLoss::beta)
      .def_property(
          "class_weights",
          [](const DetectionLoss& l) -> py::object {
            return l.class_weights.defined() ? py::cast(l.class_weights) : py::none();
          },
          [](DetectionLoss& l, std::optional<Tensor> w) { l.class_weights = w ? *w : Tensor(); },
          "Optional per-class weights (nc) multiplying the BCE terms (None: all 1).");
  mm.def(
      "task_aligned_assign",
      [](const Tensor& pred_scores, const Tensor& pred_bboxes, const Tensor& anchor_points, const Tensor& gt_labels,
         const Tensor& gt_bboxes, const Tensor& mask_gt, int64_t topk, double alpha, double beta) {
        models::yolo::Assignment a = models::yolo::task_aligned_assign(pred_scores, pred_bboxes, anchor_points,
                                                                      gt_labels, gt_bboxes, mask_gt, topk, alpha, beta);
        return py::make_tuple(a.fg_mask, a.target_gt_idx, a.target_bboxes, a.target_scores);
      },
      py::arg("pred_scores"), py::arg("pred_bboxes"), py::arg("anchor_points"), py::arg("gt_labels"),
      py::arg("gt_bboxes"), py::arg("mask_gt"), py::arg("topk") = 10, py::arg("alpha") = 0.5, py::arg("beta") = 6.0,
      "Task-aligned assignment: (fg_mask, target_gt_idx, target_bboxes, target_scores).");
}

}  // namespace adept::python
