// The task-aligned assigner of the YOLO11 detection loss (include/adept/models/yolo/loss.h, sheet 4.2).
// Per image: candidates, CIoU and alignment metric for all (gt, anchor) pairs with tensor ops in the
// predictions' dtype, then top-k, conflict resolution and score normalisation on the host.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "adept/autograd.h"
#include "adept/models/yolo/loss.h"
#include "adept/ops.h"
#include "models/yolo/box_ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {

std::vector<double> host_doubles(const Tensor& t) {
  Tensor c = t.detach().to(kCPU, kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<int64_t> host_int64(const Tensor& t) {
  Tensor c = t.detach().to(kCPU, kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

constexpr double kEps = 1e-9;

}  // namespace

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
  const int64_t B = pred_scores.size(0), A = pred_scores.size(1), nc = pred_scores.size(2);
  ADEPT_CHECK(gt_labels.dim() == 2 && gt_labels.size(0) == B && gt_bboxes.dim() == 3 && gt_bboxes.size(0) == B &&
                  gt_bboxes.size(2) == 4 && gt_bboxes.size(1) == gt_labels.size(1) &&
                  mask_gt.sizes() == gt_labels.sizes(),
              ShapeError,
              "task_aligned_assign: expected gt_labels (B, M), gt_bboxes (B, M, 4), mask_gt (B, M) with B = {}, got "
              "{}, {}, {}",
              B, shape_str(gt_labels.sizes()), shape_str(gt_bboxes.sizes()), shape_str(mask_gt.sizes()));
  ADEPT_CHECK(topk >= 1, ValueError, "task_aligned_assign: topk must be >= 1, got {}", topk);
  NoGradGuard ng;
  const Dtype dtype = pred_scores.dtype();
  const Device device = pred_scores.device();
  const int64_t M = gt_labels.size(1);
  const std::vector<int64_t> labels = host_int64(gt_labels);
  const std::vector<double> boxes = host_doubles(gt_bboxes);
  const std::vector<int64_t> valid = host_int64(mask_gt);
  for (int64_t i = 0; i < B * M; ++i) {
    ADEPT_CHECK(!valid[i] || (labels[i] >= 0 && labels[i] < nc), IndexError,
                "task_aligned_assign: class {} outside [0, {})", labels[i], nc);
  }

  std::vector<uint8_t> fg(B * A, 0);
  std::vector<int64_t> gt_idx(B * A, -1);
  std::vector<double> tboxes(B * A * 4, 0.0), tscores(B * A * nc, 0.0);
  const Tensor anchors = anchor_points.to(dtype);
  for (int64_t b = 0; b < B; ++b) {
    std::vector<int64_t> gts;  // the image's real gts
    for (int64_t g = 0; g < M; ++g) {
      const double* bx = &boxes[(b * M + g) * 4];
      if (valid[b * M + g] && bx[0] + bx[1] + bx[2] + bx[3] > 0) gts.push_back(g);
    }
    const int64_t G = static_cast<int64_t>(gts.size());
    if (G == 0) continue;
    const Tensor gidx = tensor(gts).to(gt_bboxes.device());
    const Tensor gb = index_select(gt_bboxes.select(0, b), 0, gidx).to(device, dtype);  // (G, 4)
    const Tensor gl = index_select(gt_labels.select(0, b), 0, gidx).to(device, kInt64);  // (G)
    // Candidates: min(ax - x1, ay - y1, x2 - ax, y2 - ay) > eps.
    const Tensor raw = cat({anchors.unsqueeze(0) - gb.unsqueeze(1).narrow(2, 0, 2),
                            gb.unsqueeze(1).narrow(2, 2, 2) - anchors.unsqueeze(0)}, -1);  // (G, A, 4)
    const Tensor inbox = amin(raw, {-1}) > kEps;                                             // (G, A)
    const Tensor iou = clamp(bbox_ciou(gb.unsqueeze(1), pred_bboxes.select(0, b).unsqueeze(0)), 0.0, std::nullopt);
    const Tensor iou_c = where(inbox, iou, 0.0);
    const Tensor s = index_select(pred_scores.select(0, b), 1, gl).transpose(0, 1);  // (G, A)
    const Tensor t_c = where(inbox, pow(s, alpha) * pow(iou_c, beta), 0.0);
    const std::vector<double> t = host_doubles(t_c), ov = host_doubles(iou_c);
    const std::vector<int64_t> cand = host_int64(inbox);

    // Top-k per gt (ties broken by the lower anchor index), kept where they are candidates.
    std::vector<uint8_t> pos(G * A, 0);
    std::vector<int64_t> order(A);
    const int64_t k = std::min(topk, A);
    for (int64_t g = 0; g < G; ++g) {
      std::iota(order.begin(), order.end(), 0);
      const double* tg = &t[g * A];
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [&](int64_t i, int64_t j) { return tg[i] > tg[j] || (tg[i] == tg[j] && i < j); });
      for (int64_t r = 0; r < k; ++r) {
        if (cand[g * A + order[r]]) pos[g * A + order[r]] = 1;
      }
    }
    // One gt per anchor. Positive for one gt: that gt. Positive for several: the gt of largest
    // CIoU among all gts whose box holds the anchor (first on ties), as Ultralytics'
    // select_highest_overlaps does; it may be a gt whose top-k did not include the anchor.
    std::vector<int64_t> owner(A, -1);
    for (int64_t a = 0; a < A; ++a) {
      int64_t npos = 0;
      for (int64_t g = 0; g < G; ++g) {
        if (pos[g * A + a]) {
          ++npos;
          owner[a] = g;
        }
      }
      if (npos < 2) continue;
      owner[a] = 0;
      for (int64_t g = 1; g < G; ++g)
        if (ov[g * A + a] > ov[owner[a] * A + a]) owner[a] = g;
    }
    // Normalised alignment: t * max_pos IoU / (max_pos t + eps) per gt over its final positives.
    std::vector<double> max_t(G, 0.0), max_iou(G, 0.0);
    for (int64_t a = 0; a < A; ++a) {
      const int64_t g = owner[a];
      if (g < 0) continue;
      max_t[g] = std::max(max_t[g], t[g * A + a]);
      max_iou[g] = std::max(max_iou[g], ov[g * A + a]);
    }
    for (int64_t a = 0; a < A; ++a) {
      const int64_t g = owner[a];
      if (g < 0) continue;
      const int64_t m = gts[g], ba = b * A + a;
      fg[ba] = 1;
      gt_idx[ba] = m;
      std::copy_n(&boxes[(b * M + m) * 4], 4, &tboxes[ba * 4]);
      tscores[ba * nc + labels[b * M + m]] = t[g * A + a] * max_iou[g] / (max_t[g] + kEps);
    }
  }
  Assignment out;
  out.fg_mask = from_blob_copy(fg.data(), {B, A}, kBool).to(device);
  out.target_gt_idx = from_blob_copy(gt_idx.data(), {B, A}, kInt64).to(device);
  out.target_bboxes = from_blob_copy(tboxes.data(), {B, A, 4}, kFloat64).to(device, dtype);
  out.target_scores = from_blob_copy(tscores.data(), {B, A, nc}, kFloat64).to(device, dtype);
  return out;
}

}  // namespace adept::models::yolo
