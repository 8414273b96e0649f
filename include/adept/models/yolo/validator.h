// YOLO11 validation: detections of a dataset split scored with COCO-style mAP (sheet section 6),
// after every training epoch and as `adept val`.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adept/data/dataloader.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/confusion_matrix.h"
#include "adept/models/yolo/loss.h"
#include "adept/models/yolo/metrics.h"
#include "adept/models/yolo/nms.h"
#include "adept/models/yolo/yolo11.h"

namespace adept::models::yolo {

/// What one validation pass measured.
struct ValidationResult {
  DetectionResults metrics;
  std::optional<ConfusionMatrix> confusion;  ///< IoU 0.45, conf 0.25 (or the NMS conf when above 0.001)
  std::string save_dir;          ///< where the plots went (empty without plots)
  std::array<double, 3> loss{};  ///< mean (box, cls, dfl) loss items over the batches, when a loss was given
  double seconds = 0;            ///< wall time of the pass
};

/// Where validate() draws: `dir` receives val_batch{0,1}_labels.jpg and val_batch{0,1}_pred.jpg
/// (the first two batches with their labels, and with the predictions of confidence >= 0.25),
/// BoxPR/F1/P/R_curve.png, confusion_matrix.png and confusion_matrix_normalized.png; `names` label
/// the classes. A plot that fails is skipped with a warning; validation goes on.
struct ValidationPlots {
  std::string dir;
  std::vector<std::string> names;
};

/// Runs `model` in eval mode without autograd over every batch of `loader` (detection_collate
/// layout: img (B, 3, H, W) uint8, targets (N, 6) [batch index, class, cx, cy, w, h] normalised to
/// the input, ori_shape (B, 2), ratio_pad (B, 3)): decoded predictions -> non_max_suppression(nms)
/// -> predictions and ground truth mapped back to the original images (scale_boxes with the
/// batch's ratio_pad) -> DetectionMetrics (pycocotools' 101-point AP, all detections kept). With
/// `loss`, the loss items of each batch are averaged as well (from the same forward pass). The
/// model's training flag is restored afterwards. `progress` (optional) is called after each batch
/// with (batches done, total). The confusion matrix of the pass is always counted; with `plots`,
/// the plots are drawn too. Errors: as the model, NMS and metrics raise them.
ValidationResult validate(Yolo11& model, data::DataLoader& loader, const NmsOptions& nms,
                          const DetectionLoss* loss = nullptr,
                          const std::function<void(int64_t, int64_t)>& progress = {},
                          const ValidationPlots* plots = nullptr);

/// `adept val`: loads `model` (a checkpoint, or a scale name for a random model) and the `split`
/// of `data` (default: the checkpoint's dataset), letterboxes at `imgsz` without augmentation,
/// validates with conf (default 0.001), iou, max_det (multi-label NMS) in batches of `batch`
/// with `workers` processes on `device`, and prints the per-class table (verbose) through spdlog.
/// With plots (the default), a run folder <project>/<name or "val"> receives the plots of
/// ValidationPlots (ValidationResult::save_dir).
/// With `model`, that model is validated instead of loading `model=`.
ValidationResult val(const Config& config, const LoadedModel* model = nullptr);

}  // namespace adept::models::yolo
