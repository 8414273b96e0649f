// The training run's TensorBoard log (option tensorboard=True): what results.csv and batches.csv
// record, plus a few training batches as images, in an event file of the run folder
// (adept/io/tensorboard.h), for `tensorboard --logdir runs/detect`.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "adept/io/tensorboard.h"
#include "adept/tensor.h"

namespace adept::models::yolo::detail {

class TensorBoardLog {
 public:
  /// A new event file in `save_dir` (a resumed run adds one beside its earlier part's; TensorBoard reads
  /// them as one run). IOError naming the file when it cannot be created.
  explicit TensorBoardLog(const std::string& save_dir);

  /// One results.csv row: each column but the first ("epoch", 1-based, the step) is a scalar whose tag is
  /// the column's name (train/box_loss, metrics/mAP50(B), lr/pg0, ...). Flushes the file.
  void epoch(const std::vector<std::string>& columns, const std::vector<double>& row);
  /// One batch's loss items (box, cls, dfl) as batch/box_loss, batch/cls_loss, batch/dfl_loss at step
  /// `iteration` (batches.csv's iteration column).
  void batch(int64_t iteration, const std::array<double, 3>& losses);
  /// A training batch as one image tagged `tag` at `step`: up to 16 of its images on a grid (the grid
  /// 1280 to 1920 pixels wide, as train_batchN.jpg) with their labelled boxes, as Ultralytics' train_batch
  /// plots (plots.h's batch_mosaic). img: (B, 3, H, W) uint8 RGB, on the host for the trainer (any
  /// device works, at the price of a read-back); targets: (N, 6) rows (batch_idx, cls, cx, cy, w, h)
  /// normalized to the image size; class k is labelled names[k]. ShapeError for other shapes.
  void batch_image(const std::string& tag, int64_t step, const Tensor& img, const Tensor& targets,
                   const std::vector<std::string>& names);
  const std::string& path() const { return writer_.path(); }

 private:
  io::SummaryWriter writer_;
};

}  // namespace adept::models::yolo::detail
