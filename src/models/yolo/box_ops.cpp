// Box geometry (CIoU, dist2bbox, bbox2dist) and the distribution focal loss (box_ops.h).
#include "models/yolo/box_ops.h"

#include <numbers>

#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {
Tensor coord(const Tensor& box, int64_t i) { return box.select(-1, i); }
}  // namespace

Tensor bbox_ciou(const Tensor& box1, const Tensor& box2, double eps) {
  ADEPT_CHECK(box1.dim() >= 1 && box1.size(-1) == 4 && box2.dim() >= 1 && box2.size(-1) == 4, ShapeError,
              "bbox_ciou: expected boxes (..., 4), got {} and {}", shape_str(box1.sizes()), shape_str(box2.sizes()));
  const Tensor ax1 = coord(box1, 0), ay1 = coord(box1, 1), ax2 = coord(box1, 2), ay2 = coord(box1, 3);
  const Tensor bx1 = coord(box2, 0), by1 = coord(box2, 1), bx2 = coord(box2, 2), by2 = coord(box2, 3);
  const Tensor w1 = ax2 - ax1, h1 = ay2 - ay1 + eps, w2 = bx2 - bx1, h2 = by2 - by1 + eps;
  const Tensor inter = clamp(minimum(ax2, bx2) - maximum(ax1, bx1), 0.0, std::nullopt) *
                       clamp(minimum(ay2, by2) - maximum(ay1, by1), 0.0, std::nullopt);
  const Tensor iou = inter / (w1 * h1 + w2 * h2 - inter + eps);
  const Tensor cw = maximum(ax2, bx2) - minimum(ax1, bx1), ch = maximum(ay2, by2) - minimum(ay1, by1);
  const Tensor c2 = cw * cw + ch * ch + eps;
  const Tensor dx = bx1 + bx2 - ax1 - ax2, dy = by1 + by2 - ay1 - ay2;
  const Tensor rho2 = (dx * dx + dy * dy) / 4.0;
  const Tensor dv = atan(w2 / h2) - atan(w1 / h1);
  const Tensor v = (4.0 / (std::numbers::pi * std::numbers::pi)) * (dv * dv);
  Tensor alpha;
  {
    NoGradGuard ng;
    alpha = v / (v - iou + (1.0 + eps));
  }
  return iou - (rho2 / c2 + v * alpha.detach());
}

Tensor dist2bbox(const Tensor& distance, const Tensor& anchor_points) {
  ADEPT_CHECK(distance.dim() >= 1 && distance.size(-1) == 4 && anchor_points.size(-1) == 2, ShapeError,
              "dist2bbox: expected distances (..., 4) and anchors (..., 2), got {} and {}",
              shape_str(distance.sizes()), shape_str(anchor_points.sizes()));
  const int64_t last = distance.dim() - 1;
  return cat({anchor_points - distance.narrow(last, 0, 2), anchor_points + distance.narrow(last, 2, 2)}, -1);
}

Tensor bbox2dist(const Tensor& anchor_points, const Tensor& boxes, double max_dist) {
  ADEPT_CHECK(boxes.dim() >= 1 && boxes.size(-1) == 4 && anchor_points.size(-1) == 2, ShapeError,
              "bbox2dist: expected boxes (..., 4) and anchors (..., 2), got {} and {}",
              shape_str(boxes.sizes()), shape_str(anchor_points.sizes()));
  const int64_t last = boxes.dim() - 1;
  return clamp(cat({anchor_points - boxes.narrow(last, 0, 2), boxes.narrow(last, 2, 2) - anchor_points}, -1), 0.0,
               max_dist);
}

Tensor distribution_focal_loss(const Tensor& logits, const Tensor& target) {
  ADEPT_CHECK(logits.dim() == 2 && target.dim() == 1 && target.size(0) == logits.size(0), ShapeError,
              "distribution_focal_loss: expected logits (N, R) and target (N), got {} and {}",
              shape_str(logits.sizes()), shape_str(target.sizes()));
  // Bin r weighs max(0, 1 - |r - y|): floor(y) + 1 - y and y - floor(y) on the two bins around y,
  // 0 elsewhere (the same roundings as computing the two weights directly, as y - floor(y) is
  // exact). A weighted sum over the bins instead of a gather, so no index is read back.
  const Tensor y = target.detach().unsqueeze(1);
  const int64_t R = logits.size(1);
  // In place where no graph is recorded: at most two logit-sized temporaries at a time.
  auto bin_weights = [y, R] {
    const Tensor bins = arange(R, TensorOptions(y.dtype()).set_device(y.device()));
    Tensor w = abs(bins - y);
    w.mul_(-1).add_(1).clamp_(0.0, std::nullopt);
    return w;
  };
  Tensor out;
  {
    NoGradGuard ng;
    Tensor terms = log_softmax(logits, -1);
    terms.mul_(bin_weights().to(terms.dtype()));
    out = -terms.sum({-1});
  }
  // d/dl_r = g (softmax(l)_r sum(w) - w_r), the weights recomputed from the target: backward keeps only
  // the logits (a view), not the logit-sized log-softmax and weights that the composed ops would save
  // (four tensors of 34 MB each for YOLO11 at batch 16 @ 640).
  const autograd::SavedTensor saved(logits);
  autograd::record("DistributionFocalLossBackward", {logits}, {out}, [=](const std::vector<Tensor>& g) {
    const Tensor l = saved.get();
    const Tensor w = bin_weights().to(l.dtype()), gy = g[0].unsqueeze(1).to(l.dtype());
    if (is_grad_enabled()) return std::vector<Tensor>{gy * (softmax(l, -1) * w.sum({-1}, true) - w)};  // create_graph
    Tensor d = softmax(l, -1);
    d.mul_(w.sum({-1}, true)).sub_(w).mul_(gy);
    return std::vector<Tensor>{d};
  });
  return out;
}

}  // namespace adept::models::yolo
