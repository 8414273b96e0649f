// COCO-style detection metrics (mAP50, mAP50-95, per-class AP, precision/recall) accumulated over
// images, computed as pycocotools' COCOeval (bbox, area "all") does; see docs/architecture.md 10.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept::models::yolo {

/// The 10 IoU thresholds 0.50:0.05:0.95 (as numpy.linspace(0.5, 0.95, 10) computes them).
inline constexpr int kNumIouThresholds = 10;
/// The 101 recall points 0:0.01:1 at which COCO samples the precision envelope.
inline constexpr int kRecallPoints = 101;
/// The confidence grid j / 1000, j = 0..999, of the P, R and F1 curves and of best_conf.
inline constexpr int kConfPoints = 1000;
std::array<double, kNumIouThresholds> coco_iou_thresholds();

/// What DetectionMetrics::compute returns. Per-class vectors are indexed like `classes`.
struct DetectionResults {
  std::array<double, kNumIouThresholds> iou_thresholds{};
  std::vector<int64_t> classes;      ///< classes with at least one ground-truth box, ascending
  std::vector<int64_t> n_images;     ///< per class: images containing it
  std::vector<int64_t> n_instances;  ///< per class: ground-truth boxes
  std::vector<std::array<double, kNumIouThresholds>> ap;         ///< per class, per IoU threshold
  std::vector<std::array<double, kNumIouThresholds>> max_recall;  ///< per class: recall at the lowest score
  std::vector<double> precision, recall;  ///< per class at IoU 0.5 and confidence >= best_conf
  /// Per class at IoU 0.5: the precision envelope at the kRecallPoints recall points (AP50 is its mean).
  std::vector<std::array<double, kRecallPoints>> pr_curve;
  /// Per class at IoU 0.5: precision and recall counting detections with score >= j / kConfPoints
  /// (kConfPoints values each; F1 = 2PR / (P + R)).
  std::vector<std::vector<double>> p_curve, r_curve;
  double map50 = 0, map75 = 0, map50_95 = 0;  ///< means over `classes` (0 when there is none)
  double mp = 0, mr = 0;   ///< mean precision and recall at best_conf
  double best_conf = 0;    ///< the confidence (of 1000 in [0, 1)) maximising the mean F1 at IoU 0.5
  int64_t images = 0;      ///< images accumulated
  int64_t instances = 0;   ///< ground-truth boxes accumulated

  /// Ultralytics' checkpoint-selection fitness 0.1 * mAP50 + 0.9 * mAP50-95.
  double fitness() const { return 0.1 * map50 + 0.9 * map50_95; }
  /// The validation table as Ultralytics prints it: a row `all` then one per class with Images,
  /// Instances, P, R, mAP50, mAP50-95 (names[c] as class name when given, else the index).
  std::string table(const std::vector<std::string>& names = {}) const;
};

/// Accumulates predictions and ground truth per image and computes COCO mAP as pycocotools does:
///  * Matching, per image, class and IoU threshold t: detections of the class in descending score
///    order (stable), each takes the not yet matched ground-truth box of its class with the highest
///    IoU >= t (ties: the later box); unmatched detections are false positives.
///  * Per class over all images (detections sorted by score, stable in image then rank order):
///    cumulative TP/FP, recall = TP / n_gt, precision = TP / (TP + FP + 2^-52), made monotone
///    (right-to-left max), sampled at the 101 recall points 0:0.01:1 by searchsorted-left (0 beyond
///    the largest recall); AP = mean of the 101 samples. Classes without ground truth are excluded
///    from every mean (pycocotools' -1); classes with ground truth and no detection count as AP 0.
///  * mAP50 = mean AP at IoU 0.5, mAP75 at 0.75, mAP50-95 = mean over the classes and the 10
///    thresholds (pycocotools stats[1], stats[2], stats[0]).
///  * Detections per image: pycocotools keeps the maxDets = 100 best *per image and class*;
///    here `max_dets` does the same when > 0, and the default 0 keeps all (the NMS output, up to
///    max_det = 300 per image, as Ultralytics' val keeps them). With max_dets = 100 the result is
///    COCOeval's stats[0] / stats[1].
///  * Ultralytics' printed mAP differs: it matches (gt, pred) pairs in descending-IoU order ignoring
///    the score, and integrates the envelope (with (0, 1) prepended) by the trapezoidal rule over the
///    linearly interpolated 101 points, so it is usually slightly higher. Adept prints this COCO one.
///  * P and R: Ultralytics-style, at the single confidence threshold (grid j / 1000, j < 1000)
///    maximising the mean over classes of F1 at IoU 0.5, counting detections with score >= it
///    (precision 1 for a class without detections above it, 0 for a class without any detection,
///    as Ultralytics reports them); unlike Ultralytics the F1 curve is
///    not smoothed and not interpolated between detections.
class DetectionMetrics {
 public:
  /// ValueError for max_dets < 0.
  explicit DetectionMetrics(int64_t max_dets = 0);

  /// Adds one image: preds (n, 6) [x1, y1, x2, y2, conf, cls] (non_max_suppression's output) and
  /// targets (m, 5) [cls, x1, y1, x2, y2] in the same coordinates; either may be empty (n or m = 0,
  /// or numel 0). Any device and floating dtype. ShapeError for other shapes, ValueError for a
  /// negative class.
  void update(const Tensor& preds, const Tensor& targets);
  /// Computes the metrics of everything added so far.
  DetectionResults compute() const;
  /// Forgets all images.
  void reset();
  int64_t images() const { return images_; }

 private:
  struct Det {
    double score;
    int64_t image, rank;
    uint16_t matched;  // bit t: true positive at IoU threshold t
  };
  struct ClassData {
    std::vector<Det> dets;
    int64_t n_gt = 0, n_images = 0;
  };
  int64_t max_dets_;
  int64_t images_ = 0;
  std::map<int64_t, ClassData> classes_;
};

}  // namespace adept::models::yolo
