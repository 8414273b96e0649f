// Batching detection samples: stacked images and one (N, 6) target table with a batch index column
// (Ultralytics' YOLODataset.collate_fn, flattened into the layout v8DetectionLoss reads).
#pragma once
#include <vector>

#include "adept/data/tensor_dict.h"

namespace adept::vision {

/// Collates DetectionDataset samples (keys img, cls, bboxes, ori_shape, ratio_pad, index) into
///   "img":       (B, 3, H, W) uint8 (torch.stack of the samples' images)
///   "targets":   (N, 6) float32 rows (batch_idx, cls, cx, cy, w, h), samples in order, N the
///                total number of boxes; (0, 6) when no sample has a box
///   "ori_shape": (B, 2) int64, "ratio_pad": (B, 3) float32, "index": (B,) int64
/// Errors: ValueError for an empty list; ShapeError naming the sample (position and index) whose
/// image size differs from the first one's or whose cls / bboxes are not (n, 1) / (n, 4);
/// IndexError (from TensorDict) when a key is missing.
data::Batch detection_collate(const std::vector<data::Sample>& samples);

/// uint8 images (any shape) -> float32 in [0, 1] (x / 255), with tensor ops so it runs on the
/// batch's device: move the uint8 batch first (a quarter of the float bytes), then convert there.
/// DtypeError unless uint8.
Tensor to_float_image(const Tensor& images);

}  // namespace adept::vision
