// The training run's TensorBoard log (tensorboard_log.h).
#include "models/yolo/engine/tensorboard_log.h"
#include "models/yolo/engine/plots.h"

#include "adept/errors.h"
#include "adept/ops.h"
#include "ops/helpers.h"
#include "vision/codecs.h"

namespace adept::models::yolo::detail {

TensorBoardLog::TensorBoardLog(const std::string& save_dir) : writer_(save_dir) {}

void TensorBoardLog::epoch(const std::vector<std::string>& columns, const std::vector<double>& row) {
  ADEPT_CHECK(columns.size() == row.size() && !row.empty(), ValueError,
              "tensorboard: a results row has {} values for {} columns", row.size(), columns.size());
  const auto step = static_cast<int64_t>(row[0]);
  for (size_t k = 1; k < row.size(); ++k) writer_.add_scalar(columns[k], row[k], step);
  writer_.flush();
}

void TensorBoardLog::batch(int64_t iteration, const std::array<double, 3>& losses) {
  writer_.add_scalar("batch/box_loss", losses[0], iteration);
  writer_.add_scalar("batch/cls_loss", losses[1], iteration);
  writer_.add_scalar("batch/dfl_loss", losses[2], iteration);
}

void TensorBoardLog::batch_image(const std::string& tag, int64_t step, const Tensor& img, const Tensor& targets,
                                 const std::vector<std::string>& names) {
  ADEPT_CHECK(targets.dim() == 2 && targets.size(1) == 6, ShapeError,
              "tensorboard: batch_image needs (N, 6) targets (batch_idx, cls, cx, cy, w, h), got {}",
              shape_str(targets.sizes()));
  // The labels in batch_mosaic's rows, a confidence of -1 marking them as labels.
  const Tensor labels = cat({targets.to(kCPU).to(kFloat32), full({targets.size(0), 1}, -1.0, kFloat32)}, 1);
  const Tensor grid = batch_mosaic(img, labels, names).contiguous();
  const std::vector<uint8_t> png =
      vision::detail::encode_png({grid.data_ptr<uint8_t>(), grid.size(0), grid.size(1), grid.size(1) * 3}, tag);
  writer_.add_image_encoded(tag, png, grid.size(0), grid.size(1), 3, step);
}

}  // namespace adept::models::yolo::detail
