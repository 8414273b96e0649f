// Detection post-processing for YOLO11: non-maximum suppression of the decoded predictions, box IoU
// and mapping boxes from the letterboxed input back to the original image (sheet section 6).
#pragma once
#include <cstdint>
#include <vector>

#include "adept/tensor.h"

namespace adept::models::yolo {

/// Options of non_max_suppression (Ultralytics' names and defaults: predict conf 0.25, val 0.001).
struct NmsOptions {
  double conf_thres = 0.25;  ///< keep (box, class) pairs whose score is > conf_thres
  double iou_thres = 0.7;    ///< suppress a box whose IoU with a kept higher-scored box is > iou_thres
  std::vector<int64_t> classes;  ///< keep only these class indices (empty: all)
  bool agnostic = false;     ///< true: one NMS over all classes; false: boxes only suppress their own class
  bool multi_label = false;  ///< true (val): every pair with score > conf; false (predict): best class per box
  int64_t max_det = 300;     ///< at most this many boxes per image after NMS
  int64_t max_nms = 30000;   ///< before NMS keep only this many highest-scored candidates
};

/// Non-maximum suppression of decoded YOLO predictions, as Ultralytics' ops.non_max_suppression:
///   1. candidates are (box, class) pairs with score > conf_thres: the best class of each anchor, or
///      with multi_label (and nc > 1) every class above the threshold; optionally only `classes`;
///   2. boxes cx, cy, w, h -> x1, y1, x2, y2; more than max_nms candidates keep the max_nms best;
///   3. greedy NMS in descending score order (ties: lower candidate index first), a box being
///      suppressed by a kept box of the same class (any class if agnostic) with IoU > iou_thres.
///      Ultralytics gets the per-class behaviour by offsetting boxes by class * 7680; here the IoU of
///      boxes of different classes is simply never computed (same result without float rounding);
///   4. at most max_det boxes, in descending score order.
/// preds: (B, 4 + nc, A) float (Yolo11 eval output), any device; computed on the CPU in float64
/// without autograd. Returns B tensors (n_i, 6) [x1, y1, x2, y2, conf, cls] of the input's dtype
/// and device, sorted by conf descending (n_i may be 0).
/// Errors: ShapeError unless preds is 3-d with at least 5 rows; DtypeError for a non-float dtype;
/// ValueError for iou_thres outside [0, 1], max_det < 0 or max_nms < 1.
std::vector<Tensor> non_max_suppression(const Tensor& preds, const NmsOptions& options = {});

/// Pairwise IoU of two sets of xyxy boxes: (N, 4), (M, 4) -> (N, M), inter / (area1 + area2 - inter
/// + eps) with eps = 1e-7 (Ultralytics' metrics.box_iou; torchvision.ops.box_iou without eps).
/// Composed of tensor ops: any device, differentiable. ShapeError unless both are (*, 4) 2-d.
Tensor box_iou(const Tensor& box1, const Tensor& box2, double eps = 1e-7);

/// Boxes from the letterboxed network input back to the original image: the first four columns
/// x1, y1, x2, y2 become ((x - pad_x) / gain, (y - pad_y) / gain), clipped to [0, orig_w] and
/// [0, orig_h]; other columns (conf, cls) are copied. ratio_pad is the (3,) (gain, pad_x, pad_y)
/// of the detection datasets ("ratio_pad": input = original * gain + pad); orig_shape is (h, w).
/// boxes: (n, >= 4) float -> same shape, dtype and device (a new tensor; computed on the CPU).
/// Errors: ShapeError for other shapes, ValueError for gain <= 0 or orig_shape not 2 positive sizes.
Tensor scale_boxes(const Tensor& boxes, const Tensor& ratio_pad, const std::vector<int64_t>& orig_shape);

/// As above with gain and pad derived as Ultralytics' scale_boxes does without ratio_pad (centred
/// letterbox of orig_shape (h, w) into input_shape (h, w)): gain = min(in_h / h, in_w / w),
/// pad = (round((in_w - w * gain) / 2 - 0.1), round((in_h - h * gain) / 2 - 0.1)).
Tensor scale_boxes(const std::vector<int64_t>& input_shape, const Tensor& boxes,
                   const std::vector<int64_t>& orig_shape);

}  // namespace adept::models::yolo
