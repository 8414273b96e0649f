// Image mosaics of a batch with its labels or predictions (plots.h).
#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "adept/errors.h"
#include "adept/models/yolo/draw.h"
#include "adept/ops.h"
#include "models/yolo/engine/figure.h"
#include "models/yolo/engine/plots.h"
#include "ops/helpers.h"
#include "vision/cv_tensor.h"

namespace adept::models::yolo::detail {

namespace {

constexpr int64_t kMaxTiles = 16;

}  // namespace

Tensor batch_mosaic(const Tensor& img, const Tensor& boxes, const std::vector<std::string>& names, double min_width,
                    double max_width) {
  ADEPT_CHECK(img.defined() && img.dim() == 4 && img.size(1) == 3 && img.dtype() == kUInt8, ShapeError,
              "plot_batch: expected images of shape (B, 3, H, W) uint8, got {}",
              img.defined() ? shape_str(img.sizes()) + " " + dtype_name(img.dtype()) : std::string("undefined"));
  ADEPT_CHECK(boxes.numel() == 0 || (boxes.dim() == 2 && boxes.size(1) == 7), ShapeError,
              "plot_batch: expected boxes of shape (n, 7) [batch, cls, cx, cy, w, h, conf], got {}",
              shape_str(boxes.sizes()));
  const int64_t bs = std::min(img.size(0), kMaxTiles);
  const int64_t h = img.size(2), w = img.size(3);
  const int64_t ns = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(std::max<int64_t>(bs, 1)))));
  const int64_t grid_rows = std::max<int64_t>(1, (bs + ns - 1) / ns);  // no empty rows below the last image
  const double grid = static_cast<double>(ns * std::max(h, w));
  const double scale = grid > 0 ? std::clamp(grid, min_width, max_width) / grid : 1.0;
  // Rounded down, so the mosaic is never wider than the chosen width.
  const int th = std::max(1, static_cast<int>(std::floor(static_cast<double>(h) * scale + 1e-9)));
  const int tw = std::max(1, static_cast<int>(std::floor(static_cast<double>(w) * scale + 1e-9)));
  cv::Mat mosaic(static_cast<int>(grid_rows) * th, static_cast<int>(ns) * tw, CV_8UC3, cv::Scalar(255, 255, 255));
  // (B, H, W, 3) RGB -> BGR on the CPU.
  const Tensor hwc = flip(img.detach().narrow(0, 0, bs).to(kCPU).permute({0, 2, 3, 1}), {3}).contiguous();
  const Tensor rows = boxes.numel() ? boxes.detach().to(kCPU).to(kFloat64).contiguous() : zeros({0, 7}, kFloat64);
  const double* r = rows.data_ptr<double>();
  for (int64_t b = 0; b < bs; ++b) {
    cv::Mat src = vision::detail::as_mat(hwc.select(0, b).contiguous()).clone();
    cv::Mat tile;
    cv::resize(src, tile, cv::Size(tw, th), 0, 0, scale > 1 ? cv::INTER_NEAREST : cv::INTER_AREA);
    std::vector<double> det;
    bool any_conf = false;
    for (int64_t i = 0; i < rows.size(0); ++i) {
      const double* q = r + 7 * i;
      if (static_cast<int64_t>(q[0]) != b) continue;
      det.insert(det.end(), {(q[2] - q[4] / 2) * tw, (q[3] - q[5] / 2) * th, (q[2] + q[4] / 2) * tw,
                             (q[3] + q[5] / 2) * th, std::max(q[6], 0.0), q[1]});
      any_conf = any_conf || q[6] >= 0;
    }
    Tensor t = vision::detail::from_mat(tile);
    if (!det.empty())
      draw_detections(t, tensor(det, kFloat64).reshape({-1, 6}), names, 0, true, any_conf);
    const int x0 = static_cast<int>(b % ns) * tw, y0 = static_cast<int>(b / ns) * th;
    tile.copyTo(mosaic(cv::Rect(x0, y0, tw, th)));
    cv::rectangle(mosaic, cv::Rect(x0, y0, tw, th), cv::Scalar(255, 255, 255), 2);
  }
  return vision::detail::from_mat(mosaic);
}

void plot_batch(const Tensor& img, const Tensor& boxes, const std::vector<std::string>& names,
                const std::string& out_jpg) {
  write_image_atomic(out_jpg, batch_mosaic(img, boxes, names));
}

}  // namespace adept::models::yolo::detail
