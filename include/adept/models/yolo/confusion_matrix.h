// The detection confusion matrix of a validation pass, as Ultralytics' ConfusionMatrix counts it.
#pragma once
#include <cstdint>
#include <vector>

#include "adept/tensor.h"

namespace adept::models::yolo {

/// Counts, over images, which class each ground-truth box was detected as: an (nc + 1) x (nc + 1)
/// matrix indexed [predicted][true], whose last row and column are "background".
///  * Per image, detections with confidence > conf (validate() passes 0.25 when validation's conf
///    is 0.001, the mAP default, as Ultralytics does) are matched class-agnostically to ground-truth boxes with IoU > iou: pairs in
///    descending IoU, each detection and each ground-truth box used at most once.
///  * A matched ground-truth box counts [its detection's class][its class]; an unmatched one
///    [background][its class]; an unmatched detection [its class][background].
class ConfusionMatrix {
 public:
  /// ValueError for nc < 1 or thresholds outside [0, 1].
  explicit ConfusionMatrix(int64_t nc, double conf = 0.25, double iou = 0.45);

  /// Adds one image: preds (n, 6) [x1, y1, x2, y2, conf, cls] and targets (m, 5) [cls, x1, y1, x2,
  /// y2] in the same coordinates (DetectionMetrics::update's layout; either may be empty). Any
  /// device and floating dtype. ShapeError for other shapes, ValueError for a class outside [0, nc).
  void update(const Tensor& preds, const Tensor& targets);

  int64_t nc() const { return nc_; }
  /// The count at [predicted][true], each in [0, nc] (nc: background).
  int64_t at(int64_t predicted, int64_t truth) const { return counts_[predicted * (nc_ + 1) + truth]; }
  /// The matrix with each column (true class) divided by its sum (+1e-9): row-major [predicted][true].
  std::vector<double> normalized() const;

 private:
  int64_t nc_;
  double conf_, iou_;
  std::vector<int64_t> counts_;
};

}  // namespace adept::models::yolo
