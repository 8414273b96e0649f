// The YOLO11 (v8) detection loss: task-aligned assigner, CIoU box loss, distribution focal loss
// and BCE class loss, following ../shared/docs/yolo11.md section 4 (Ultralytics' v8DetectionLoss).
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "adept/tensor.h"

namespace adept::models::yolo {

class Yolo11;

/// What the task-aligned assigner gives every anchor. B images, A anchors, nc classes.
struct Assignment {
  Tensor fg_mask;        ///< (B, A) bool: the anchor is a positive (exactly one gt)
  Tensor target_gt_idx;  ///< (B, A) int64: index of the assigned gt within its image, -1 for negatives
  Tensor target_bboxes;  ///< (B, A, 4) xyxy pixels of the assigned gt (0 for negatives)
  Tensor target_scores;  ///< (B, A, nc) one-hot(label) x the normalised alignment (0 for negatives)
};

/// Task-aligned assignment (Feng et al., 2021, "TOOD"; sheet 4.2), without gradients.
/// pred_scores (B, A, nc) class probabilities, pred_bboxes (B, A, 4) xyxy pixels, anchor_points
/// (A, 2) pixels, gt_labels (B, M) int64, gt_bboxes (B, M, 4) xyxy pixels, mask_gt (B, M) bool
/// (padding rows false; a row whose coordinates sum to <= 0 is also ignored).
/// 1. candidates: anchors whose centre lies inside the gt (min distance to its sides > 1e-9);
/// 2. t = s[cls]^alpha CIoU^beta (CIoU clamped at 0; t = 0 off the candidates);
/// 3. each gt keeps its topk anchors by t that are candidates;
/// 4. an anchor positive for several gts goes to the gt of largest CIoU among all gts whose box
///    holds it (first on ties; Ultralytics' select_highest_overlaps);
/// 5. score = t max_pos(g) CIoU / (max_pos(g) t + 1e-9) on the label's class.
/// Runs on the predictions' device (the gts are moved there); the only read back is one flag for the
/// label check. ShapeError for inconsistent shapes; IndexError for a label outside [0, nc).
Assignment task_aligned_assign(const Tensor& pred_scores, const Tensor& pred_bboxes, const Tensor& anchor_points,
                               const Tensor& gt_labels, const Tensor& gt_bboxes, const Tensor& mask_gt,
                               int64_t topk = 10, double alpha = 0.5, double beta = 6.0);

/// The v8 / YOLO11 detection loss (sheet 4.4). With S = max(sum of target scores, 1):
///   box = sum_pos (1 - CIoU(pred, gt)) w_a / S   (grid units: gt boxes divided by the stride)
///   cls = sum over all anchors and classes of BCEWithLogits(logit, target score) [x class weight] / S
///   dfl = sum_pos mean over the 4 sides of DFL(side logits, gt distance clamped to [0, reg_max - 1.01]) w_a / S
/// with w_a the anchor's summed target score. The loss items are (box_gain box, cls_gain cls,
/// dfl_gain dfl) and the total for backward is their sum times the batch size. Images (or whole
/// batches) without targets give box = dfl = 0 and cls over all-negative targets.
class DetectionLoss {
 public:
  /// nc classes over levels of the given strides with reg_max bins per side. ValueError for nc < 1,
  /// reg_max < 2 or no strides.
  explicit DetectionLoss(int64_t nc, std::vector<double> strides = {8.0, 16.0, 32.0}, int64_t reg_max = 16);
  /// nc, strides and reg_max of the model's Detect head.
  explicit DetectionLoss(const Yolo11& model);

  /// maps: the raw head maps (B, 4 reg_max + nc, H_i, W_i), one per stride (Yolo11::forward_maps);
  /// targets (N, 6) rows (image index, class, cx, cy, w, h) with coordinates normalised to the
  /// image (the detection collate's layout); imgsz (height, width) in pixels, by default
  /// H_0 x stride_0 by W_0 x stride_0. Returns (total loss (), detached items (3) = box, cls, dfl).
  /// Errors: ValueError for a wrong number of maps or channel count, ShapeError for targets not
  /// (N, 6), IndexError for an image index outside [0, B) or a class outside [0, nc).
  std::pair<Tensor, Tensor> operator()(const std::vector<Tensor>& maps, const Tensor& targets,
                                       std::optional<std::pair<int64_t, int64_t>> imgsz = std::nullopt) const;

  int64_t nc, reg_max;
  std::vector<double> strides;
  double box_gain = 7.5, cls_gain = 0.5, dfl_gain = 1.5;
  int64_t topk = 10;
  double alpha = 0.5, beta = 6.0;
  /// Optional per-class weights (nc) multiplying the BCE terms of each class (undefined: all 1).
  Tensor class_weights;
  /// Data-parallel training over adept::distributed's default group of W ranks: S sums the target scores
  /// of every rank's batch (an all_reduce per call), the items are multiplied by W and the total by W^2
  /// (W for the items, W for DDP's average). Then DistributedDataParallel's average of the ranks'
  /// gradients is the gradient of one process's loss over all W batches, and the ranks' mean of the items
  /// is that process's items (Ultralytics multiplies its total by W, normalising by its own rank's S).
  bool distributed = false;
};

}  // namespace adept::models::yolo
