// The task-aligned assigner of the YOLO11 detection loss (include/adept/models/yolo/loss.h, sheet 4.2).
// All images at once on the predictions' device and dtype, with tensor ops over (B, M, A) = (images,
// gt rows, anchors): candidates, CIoU and alignment metric, top-k, conflict resolution and score
// normalisation; nothing is read back to the host.
#include <algorithm>

#include "adept/autograd.h"
#include "adept/models/yolo/loss.h"
#include "adept/ops.h"
#include "models/yolo/assigner.h"
#include "models/yolo/box_ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {
constexpr double kEps = 1e-9;
}  // namespace

Assignment assign_unchecked(const Tensor& pred_scores, const Tensor& pred_bboxes, const Tensor& anchor_points,
                            const Tensor& gt_labels, const Tensor& gt_bboxes, const Tensor& mask_gt, int64_t topk,
                            double alpha, double beta) {
  NoGradGuard ng;
  const int64_t B = pred_scores.size(0), A = pred_scores.size(1), nc = pred_scores.size(2), M = gt_labels.size(1);
  const Dtype dtype = pred_scores.dtype();
  const Device device = pred_scores.device();
  const TensorOptions opts = TensorOptions(dtype).set_device(device);
  const TensorOptions iopts = TensorOptions(kInt64).set_device(device);
  Assignment out;
  if (B * M * A == 0) {  // no gts (or anchors): every anchor negative
    out.fg_mask = zeros({B, A}, TensorOptions(kBool).set_device(device));
    out.target_gt_idx = full({B, A}, -1, iopts);
    out.target_bboxes = zeros({B, A, 4}, opts);
    out.target_scores = zeros({B, A, nc}, opts);
    return out;
  }
  const Tensor labels = gt_labels.to(device, kInt64);                                  // (B, M)
  const Tensor gt_raw = gt_bboxes.to(device);
  const Tensor boxes = gt_raw.to(dtype).unsqueeze(2);                                  // (B, M, 1, 4)
  const Tensor real = mask_gt.to(device, kBool) & (gt_raw.sum({-1}) > 0);              // (B, M)
  const Tensor anchors = anchor_points.to(device, dtype);                              // (A, 2)
  // Candidates (B, M, A): min(ax - x1, ay - y1, x2 - ax, y2 - ay) > eps, for real gts.
  const Tensor sides = cat({anchors - boxes.narrow(3, 0, 2), boxes.narrow(3, 2, 2) - anchors}, -1);
  const Tensor cand = (amin(sides, {-1}) > kEps) & real.unsqueeze(2);
  const Tensor iou = where(cand, clamp(bbox_ciou(boxes, pred_bboxes.unsqueeze(1)), 0.0, std::nullopt), 0.0);
  // Each gt's class score at every anchor, (B, M, nc) one-hot x (B, nc, A): one nonzero product per
  // sum, so exactly the score (labels of padding rows clamped into range; they are not candidates).
  const Tensor onehot = eq(clamp(labels, 0, nc - 1).unsqueeze(-1), arange(nc, iopts)).to(dtype);
  const Tensor s = bmm(onehot, pred_scores.transpose(1, 2));
  const Tensor t = where(cand, pow(s, alpha) * pow(iou, beta), 0.0);  // (B, M, A)

  // Top-k per gt by t, ties to the lower anchor index, kept where they are candidates: above the
  // k-th value, or equal to it and among the first (k - #above) such anchors.
  const int64_t k = std::min(topk, A);
  const Tensor kth = std::get<0>(adept::topk(t, k, -1)).narrow(-1, k - 1, 1);  // (B, M, 1)
  const Tensor above = t > kth, tie = (t == kth).to(kInt64);
  const Tensor tie_rank = cumsum(tie, -1) - tie;  // earlier ties in the row
  const Tensor room = k - sum(above, {-1}, true, kInt64);
  const Tensor pos = (above | ((tie > 0) & (tie_rank < room))) & cand;

  // One gt per anchor. Positive for one gt: that gt. Positive for several: the real gt of largest
  // CIoU (first on ties), as Ultralytics' select_highest_overlaps does; it may be a gt whose top-k
  // did not include the anchor.
  const Tensor npos = sum(pos, {1}, false, kInt64);  // (B, A)
  const Tensor first = argmax(pos.to(dtype), 1);
  const Tensor best = argmax(where(real.unsqueeze(2), iou, -1.0), 1);
  const Tensor owner = where(npos > 1, best, first);                             // (B, A)
  const Tensor fg = npos > 0;
  const Tensor mine = eq(arange(M, iopts).view({1, M, 1}), owner.unsqueeze(1)) & fg.unsqueeze(1);  // (B, M, A)

  // Normalised alignment: t * max_pos CIoU / (max_pos t + eps) per gt over its final positives.
  const Tensor t_mine = where(mine, t, 0.0);
  const Tensor max_t = amax(t_mine, {2}, true), max_iou = amax(where(mine, iou, 0.0), {2}, true);
  const Tensor score = (t_mine * max_iou / (max_t + kEps)).sum({1});                 // (B, A)
  const Tensor label = where(mine, labels.unsqueeze(2), 0).sum({1});                 // (B, A)
  out.fg_mask = fg;
  out.target_gt_idx = where(fg, owner, -1);
  // (B, A, M) x (B, M, 4): the owner's box (one nonzero product per sum), zeros for negatives.
  out.target_bboxes = bmm(mine.to(dtype).transpose(1, 2), boxes.squeeze(2));
  out.target_scores = where(eq(label.unsqueeze(-1), arange(nc, iopts)), score.unsqueeze(-1), 0.0);
  return out;
}

Assignment task_aligned_assign(const Tensor& pred_scores, const Tensor& pred_bboxes, const Tensor& anchor_points,
                               const Tensor& gt_labels, const Tensor& gt_bboxes, const Tensor& mask_gt, int64_t topk,
                               double alpha, double beta) {
  ADEPT_CHECK(pred_scores.dim() == 3 && pred_bboxes.dim() == 3 && pred_bboxes.size(2) == 4 &&
                  pred_bboxes.size(0) == pred_scores.size(0) && pred_bboxes.size(1) == pred_scores.size(1) &&
                  anchor_points.dim() == 2 && anchor_points.size(0) == pred_scores.size(1) &&
                  anchor_points.size(1) == 2,
              ShapeError,
              "task_aligned_assign: expected pred_scores (B, A, nc), pred_bboxes (B, A, 4), anchor_points (A, 2), got "
              "{}, {}, {}",
              shape_str(pred_scores.sizes()), shape_str(pred_bboxes.sizes()), shape_str(anchor_points.sizes()));
  const int64_t B = pred_scores.size(0), nc = pred_scores.size(2);
  ADEPT_CHECK(gt_labels.dim() == 2 && gt_labels.size(0) == B && gt_bboxes.dim() == 3 && gt_bboxes.size(0) == B &&
                  gt_bboxes.size(2) == 4 && gt_bboxes.size(1) == gt_labels.size(1) &&
                  mask_gt.sizes() == gt_labels.sizes(),
              ShapeError,
              "task_aligned_assign: expected gt_labels (B, M), gt_bboxes (B, M, 4), mask_gt (B, M) with B = {}, got "
              "{}, {}, {}",
              B, shape_str(gt_labels.sizes()), shape_str(gt_bboxes.sizes()), shape_str(mask_gt.sizes()));
  ADEPT_CHECK(topk >= 1, ValueError, "task_aligned_assign: topk must be >= 1, got {}", topk);
  {
    // IndexError for a label of a row mask_gt keeps outside [0, nc): one flag read back (DetectionLoss checks
    // its targets on the host and calls assign_unchecked).
    NoGradGuard ng;
    const Tensor labels = gt_labels.to(pred_scores.device(), kInt64);
    const Tensor bad = mask_gt.to(pred_scores.device(), kBool) & ((labels < 0) | (labels >= nc));
    if (any(bad).item<bool>()) {
      const int64_t label = masked_select(labels, bad).select(0, 0).item<int64_t>();
      throw IndexError(fmt::format("task_aligned_assign: class {} outside [0, {})", label, nc));
    }
  }
  return assign_unchecked(pred_scores, pred_bboxes, anchor_points, gt_labels, gt_bboxes, mask_gt, topk, alpha, beta);
}

}  // namespace adept::models::yolo
