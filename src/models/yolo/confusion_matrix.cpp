// Ultralytics-style detection confusion matrix (confusion_matrix.h).
#include "adept/models/yolo/confusion_matrix.h"

#include <algorithm>
#include <cmath>

#include "adept/errors.h"
#include "adept/models/yolo/nms.h"
#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {

// (n, cols) rows as float64 on the CPU; an empty tensor of any shape gives (0, cols).
Tensor rows_of(const Tensor& t, int64_t cols, const char* what) {
  if (t.numel() == 0) return zeros({0, cols}, kFloat64);
  ADEPT_CHECK(t.dim() == 2 && t.size(1) == cols, ShapeError, "ConfusionMatrix.update: expected {} of shape (n, {}), got {}",
              what, cols, shape_str(t.sizes()));
  ADEPT_CHECK(t.is_floating_point(), DtypeError, "ConfusionMatrix.update: expected floating-point {}, got {}", what,
              dtype_name(t.dtype()));
  return t.detach().to(kCPU).to(kFloat64).contiguous();
}

}  // namespace

ConfusionMatrix::ConfusionMatrix(int64_t nc, double conf, double iou)
    : nc_(nc), conf_(conf == 0.001 ? 0.25 : conf), iou_(iou) {
  ADEPT_CHECK(nc >= 1, ValueError, "ConfusionMatrix: nc must be >= 1, got {}", nc);
  ADEPT_CHECK(conf >= 0 && conf <= 1 && iou >= 0 && iou <= 1, ValueError,
              "ConfusionMatrix: conf and iou must be in [0, 1], got conf={} iou={}", conf, iou);
  counts_.assign(static_cast<size_t>((nc + 1) * (nc + 1)), 0);
}

void ConfusionMatrix::update(const Tensor& preds, const Tensor& targets) {
  const Tensor p = rows_of(preds, 6, "preds [x1, y1, x2, y2, conf, cls]");
  const Tensor g = rows_of(targets, 5, "targets [cls, x1, y1, x2, y2]");
  auto class_at = [&](double v) {
    const auto c = static_cast<int64_t>(std::llround(v));
    ADEPT_CHECK(std::isfinite(v) && c >= 0 && c < nc_, ValueError,
                "ConfusionMatrix.update: class indices must be in [0, {}), got {}", nc_, v);
    return c;
  };
  // Detections above the confidence threshold.
  std::vector<int64_t> det_rows;
  const double* pp = p.data_ptr<double>();
  for (int64_t i = 0; i < p.size(0); ++i)
    if (pp[6 * i + 4] > conf_) det_rows.push_back(i);
  const double* gp = g.data_ptr<double>();
  const auto nd = static_cast<int64_t>(det_rows.size()), ng = g.size(0);
  // Pairs (gt, det) over the IoU threshold, greedily in descending IoU.
  std::vector<int64_t> det_of_gt(ng, -1), gt_of_det(nd, -1);
  if (nd > 0 && ng > 0) {
    const Tensor det_boxes = index_select(p, 0, tensor(det_rows, kInt64)).narrow(1, 0, 4);
    const Tensor ious = box_iou(g.narrow(1, 1, 4), det_boxes).contiguous();
    const double* iv = ious.data_ptr<double>();
    std::vector<std::pair<double, int64_t>> pairs;
    for (int64_t k = 0; k < ng * nd; ++k)
      if (iv[k] > iou_) pairs.emplace_back(iv[k], k);
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [v, k] : pairs) {
      const int64_t gi = k / nd, di = k % nd;
      if (det_of_gt[gi] >= 0 || gt_of_det[di] >= 0) continue;
      det_of_gt[gi] = di;
      gt_of_det[di] = gi;
    }
  }
  auto add = [&](int64_t predicted, int64_t truth) { ++counts_[predicted * (nc_ + 1) + truth]; };
  for (int64_t gi = 0; gi < ng; ++gi) {
    const int64_t truth = class_at(gp[5 * gi]);
    add(det_of_gt[gi] >= 0 ? class_at(pp[6 * det_rows[det_of_gt[gi]] + 5]) : nc_, truth);
  }
  for (int64_t di = 0; di < nd; ++di)
    if (gt_of_det[di] < 0) add(class_at(pp[6 * det_rows[di] + 5]), nc_);
}

std::vector<double> ConfusionMatrix::normalized() const {
  const int64_t n = nc_ + 1;
  std::vector<double> out(counts_.size());
  for (int64_t t = 0; t < n; ++t) {
    double sum = 0;
    for (int64_t q = 0; q < n; ++q) sum += static_cast<double>(at(q, t));
    for (int64_t q = 0; q < n; ++q) out[q * n + t] = static_cast<double>(at(q, t)) / (sum + 1e-9);
  }
  return out;
}

}  // namespace adept::models::yolo
