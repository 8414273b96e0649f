// The training run's TensorBoard log (tensorboard_log.h).
#include "models/yolo/engine/tensorboard_log.h"

#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "adept/errors.h"
#include "adept/models/yolo/draw.h"
#include "adept/ops.h"
#include "ops/helpers.h"
#include "vision/codecs.h"
#include "vision/cv_tensor.h"

namespace adept::models::yolo::detail {

namespace {
constexpr int64_t kMaxImages = 16;   // Ultralytics' plot_images: max_subplots
constexpr int64_t kMaxSide = 1920;   // and max_size
}  // namespace

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
  ADEPT_CHECK(img.dim() == 4 && img.size(1) == 3, ShapeError, "tensorboard: batch_image needs (B, 3, H, W) images, got {}",
              shape_str(img.sizes()));
  ADEPT_CHECK(img.dtype() == kUInt8, DtypeError, "tensorboard: batch_image needs uint8 images, got {}",
              dtype_name(img.dtype()));
  const Tensor images = img.to(kCPU).contiguous();
  const Tensor labels = targets.to(kCPU).to(kFloat32).contiguous();
  const int64_t n = std::min(images.size(0), kMaxImages), h0 = images.size(2), w0 = images.size(3);
  const auto cols = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  const int64_t rows = (n + cols - 1) / cols;
  const double scale = std::min(1.0, static_cast<double>(kMaxSide) / static_cast<double>(cols * std::max(h0, w0)));
  const auto h = static_cast<int64_t>(std::ceil(scale * static_cast<double>(h0)));
  const auto w = static_cast<int64_t>(std::ceil(scale * static_cast<double>(w0)));
  Tensor grid = full({rows * h, cols * w, 3}, 255, kUInt8);
  cv::Mat mosaic = vision::detail::as_mat(grid);
  const uint8_t* px = images.data_ptr<uint8_t>();
  const int64_t plane = h0 * w0;
  cv::Mat tile(static_cast<int>(h0), static_cast<int>(w0), CV_8UC3);
  for (int64_t k = 0; k < n; ++k) {
    const uint8_t* src = px + k * 3 * plane;
    for (int64_t y = 0; y < h0; ++y) {
      uint8_t* dst = tile.ptr<uint8_t>(static_cast<int>(y));
      for (int64_t x = 0; x < w0; ++x) {  // RGB planes -> BGR pixels
        const int64_t i = y * w0 + x;
        dst[3 * x] = src[2 * plane + i], dst[3 * x + 1] = src[plane + i], dst[3 * x + 2] = src[i];
      }
    }
    const cv::Rect cell(static_cast<int>((k % cols) * w), static_cast<int>((k / cols) * h), static_cast<int>(w),
                        static_cast<int>(h));
    if (scale < 1) cv::resize(tile, mosaic(cell), cell.size(), 0, 0, cv::INTER_AREA);
    else tile.copyTo(mosaic(cell));
    cv::rectangle(mosaic, cell, cv::Scalar(255, 255, 255), 2);
  }
  // Boxes in grid pixels: (x1, y1, x2, y2, conf 1, cls), labelled with the class name only.
  std::vector<float> boxes;
  const float* t = labels.data_ptr<float>();
  for (int64_t r = 0; r < (labels.dim() == 2 ? labels.size(0) : 0); ++r) {
    const float* b = t + r * labels.size(1);
    const auto k = static_cast<int64_t>(b[0]);
    if (labels.size(1) < 6 || k < 0 || k >= n) continue;
    const auto x0 = static_cast<float>((k % cols) * w), y0 = static_cast<float>((k / cols) * h);
    const auto fw = static_cast<float>(w), fh = static_cast<float>(h);
    boxes.insert(boxes.end(), {x0 + (b[2] - b[4] / 2) * fw, y0 + (b[3] - b[5] / 2) * fh, x0 + (b[2] + b[4] / 2) * fw,
                               y0 + (b[3] + b[5] / 2) * fh, 1.0f, b[1]});
  }
  // Ultralytics' line width for these plots: a tenth of its font size, 1% of the grid's (h + w) * cols.
  const auto lw = std::max(1, static_cast<int>(std::lround(static_cast<double>((h + w) * cols) * 0.001)));
  if (!boxes.empty())
    draw_detections(grid, from_blob_copy(boxes.data(), {static_cast<int64_t>(boxes.size() / 6), 6}, kFloat32), names,
                    lw, /*show_labels=*/true, /*show_conf=*/false);
  const std::vector<uint8_t> png =
      vision::detail::encode_png({grid.data_ptr<uint8_t>(), grid.size(0), grid.size(1), grid.size(1) * 3}, tag);
  writer_.add_image_encoded(tag, png, grid.size(0), grid.size(1), 3, step);
}

}  // namespace adept::models::yolo::detail
