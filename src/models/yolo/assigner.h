// The task-aligned assigner without its label check (internal to src/models/yolo).
#pragma once
#include <cstdint>

#include "adept/models/yolo/loss.h"

namespace adept::models::yolo {

/// task_aligned_assign (loss.h) with shapes already checked and every real row's label in [0, nc),
/// as DetectionLoss ensures on the host: runs on the predictions' device and reads nothing back.
Assignment assign_unchecked(const Tensor& pred_scores, const Tensor& pred_bboxes, const Tensor& anchor_points,
                            const Tensor& gt_labels, const Tensor& gt_bboxes, const Tensor& mask_gt, int64_t topk,
                            double alpha, double beta);

}  // namespace adept::models::yolo
