// Box geometry and the distribution focal loss used by the YOLO11 detection loss (internal to
// src/models/yolo; ../shared/docs/yolo11.md sections 2.12, 4.3 and 4.4). All tensor ops, so they
// run on every device and autograd flows through them.
#pragma once
#include <cstdint>

#include "adept/tensor.h"

namespace adept::models::yolo {

/// Complete IoU (Zheng et al., 2020, "Distance-IoU Loss") of xyxy boxes (..., 4) and (..., 4)
/// (broadcast) -> (...): IoU - (rho^2 / c^2 + v alpha), with h = y2 - y1 + eps for both boxes,
/// union + eps, c^2 = enclosing diagonal^2 + eps, v = 4 / pi^2 (atan(w2 / h2) - atan(w1 / h1))^2 and
/// alpha = v / (v - IoU + 1 + eps) treated as a constant (no gradient), eps = 1e-7 (sheet 4.3).
Tensor bbox_ciou(const Tensor& box1, const Tensor& box2, double eps = 1e-7);

/// Distances (l, t, r, b) (..., 4) around anchor points (..., 2) -> xyxy boxes (..., 4):
/// x1 = ax - l, y1 = ay - t, x2 = ax + r, y2 = ay + b.
Tensor dist2bbox(const Tensor& distance, const Tensor& anchor_points);

/// xyxy boxes (..., 4) around anchor points (..., 2) -> distances (ax - x1, ay - y1, x2 - ax, y2 - ay)
/// clamped to [0, max_dist].
Tensor bbox2dist(const Tensor& anchor_points, const Tensor& boxes, double max_dist);

/// Distribution focal loss (Li et al., 2020, "Generalized Focal Loss") of bin logits (N, R) for
/// continuous targets (N) in [0, R - 1) -> (N): CE(logits, floor(y)) (floor(y) + 1 - y) +
/// CE(logits, floor(y) + 1) (y - floor(y)), CE the softmax cross entropy over the R bins.
/// The targets get no gradient; a target outside [0, R - 1] gives the bins within 1 of it their
/// weight 1 - |r - y| (none for y <= -1 or y >= R).
Tensor distribution_focal_loss(const Tensor& logits, const Tensor& target);

}  // namespace adept::models::yolo
