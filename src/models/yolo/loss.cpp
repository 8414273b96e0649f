// The YOLO11 detection loss (include/adept/models/yolo/loss.h, sheet section 4.4), built from tensor
// ops so autograd flows into the raw head maps. Everything after the padding of the targets runs on
// the maps' device without reading back: the box and DFL terms are taken over all anchors, weighted
// by the target scores (0 off the positives), instead of gathering the positives.
#include "adept/models/yolo/loss.h"

#include <algorithm>

#include "adept/autograd.h"
#include "adept/distributed.h"
#include "adept/models/yolo/yolo11.h"
#include "adept/nn/functional/loss.h"
#include "adept/ops.h"
#include "adept/profiler.h"
#include "models/yolo/assigner.h"
#include "models/yolo/box_ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {

/// The targets (N, 6) normalised xywh padded per image: labels (B, M), xyxy pixel boxes (B, M, 4),
/// validity mask (B, M).
struct PaddedTargets {
  Tensor labels, boxes, mask;
};

PaddedTargets pad_targets(const Tensor& targets, int64_t B, int64_t nc, double img_h, double img_w, Dtype dtype,
                          Device device) {
  ADEPT_CHECK(targets.dim() == 2 && targets.size(1) == 6, ShapeError,
              "DetectionLoss: expected targets (N, 6) = (image, class, cx, cy, w, h), got {}",
              shape_str(targets.sizes()));
  // The targets come from the data loader on the host; ones on a device are read back here, once per
  // batch, to check and pad them (the per-image counts fix the padded shape).
  Tensor t = targets.detach().to(kCPU, kFloat64).contiguous();
  const double* p = t.data_ptr<double>();
  const int64_t N = t.size(0);
  std::vector<int64_t> count(B, 0);
  for (int64_t i = 0; i < N; ++i) {
    const double img = p[i * 6];
    ADEPT_CHECK(img >= 0 && img < static_cast<double>(B) && img == static_cast<double>(static_cast<int64_t>(img)),
                IndexError, "DetectionLoss: target {} has image index {} outside [0, {})", i, img, B);
    const double cls = p[i * 6 + 1];
    ADEPT_CHECK(cls >= 0 && cls < static_cast<double>(nc), IndexError,
                "DetectionLoss: target {} has class {} outside [0, {})", i, cls, nc);
    ++count[static_cast<int64_t>(img)];
  }
  const int64_t M = B > 0 ? *std::max_element(count.begin(), count.end()) : 0;
  std::vector<int64_t> labels(B * M, 0), mask(B * M, 0), fill(B, 0);
  std::vector<double> boxes(B * M * 4, 0.0);
  for (int64_t i = 0; i < N; ++i) {
    const double* r = p + i * 6;
    const int64_t b = static_cast<int64_t>(r[0]), slot = b * M + fill[b]++;
    labels[slot] = static_cast<int64_t>(r[1]);
    mask[slot] = 1;
    const double cx = r[2] * img_w, cy = r[3] * img_h, w = r[4] * img_w, h = r[5] * img_h;
    double* o = &boxes[slot * 4];
    o[0] = cx - w / 2, o[1] = cy - h / 2, o[2] = cx + w / 2, o[3] = cy + h / 2;
  }
  PaddedTargets out;
  out.labels = from_blob_copy(labels.data(), {B, M}, kInt64).to(device);
  out.mask = from_blob_copy(mask.data(), {B, M}, kInt64).to(device) > 0;
  // Pixel boxes are rounded to the predictions' dtype, as a float32 pipeline computes them.
  out.boxes = from_blob_copy(boxes.data(), {B, M, 4}, kFloat64).to(device, dtype);
  return out;
}

}  // namespace

DetectionLoss::DetectionLoss(int64_t nc_, std::vector<double> strides_, int64_t reg_max_)
    : nc(nc_), reg_max(reg_max_), strides(std::move(strides_)) {
  ADEPT_CHECK(nc >= 1 && reg_max >= 2 && !strides.empty(), ValueError,
              "DetectionLoss: expected nc >= 1, reg_max >= 2 and at least one stride, got nc={}, reg_max={}, "
              "{} strides",
              nc, reg_max, strides.size());
}

DetectionLoss::DetectionLoss(const Yolo11& model)
    : DetectionLoss(model.detect->nc, model.detect->stride, model.detect->reg_max) {}

std::pair<Tensor, Tensor> DetectionLoss::operator()(const std::vector<Tensor>& maps, const Tensor& targets,
                                                    std::optional<std::pair<int64_t, int64_t>> imgsz) const {
  profiler::RecordFunction label("loss");
  const int64_t no = 4 * reg_max + nc;
  ADEPT_CHECK(maps.size() == strides.size(), ValueError, "DetectionLoss: expected {} maps (one per stride), got {}",
              strides.size(), maps.size());
  for (const Tensor& m : maps) {
    ADEPT_CHECK(m.dim() == 4 && m.size(1) == no && m.size(0) == maps[0].size(0), ValueError,
                "DetectionLoss: expected maps (B, {}, H, W) with one B, got {}", no, shape_str(m.sizes()));
  }
  const int64_t B = maps[0].size(0);
  // float16 / bfloat16 maps (autocast) are scored in float32.
  const Dtype dtype = maps[0].dtype() == kFloat16 || maps[0].dtype() == kBFloat16 ? kFloat32 : maps[0].dtype();
  const Device device = maps[0].device();

  // Predictions (B, A, no): per-anchor distributions then class logits, anchors level by level.
  std::vector<Tensor> flat;
  std::vector<std::pair<int64_t, int64_t>> sizes;
  for (const Tensor& m : maps) {
    flat.push_back(m.reshape({B, no, m.size(2) * m.size(3)}));
    sizes.emplace_back(m.size(2), m.size(3));
  }
  // One split (its backward is one cat) rather than two narrows (each backward a zero-filled copy of
  // the whole prediction, then their sum).
  const std::vector<Tensor> parts = split(cat(flat, 2).to(dtype).permute({0, 2, 1}), Shape{4 * reg_max, nc}, 2);
  const Tensor pred_dist = parts[0].contiguous();  // (B, A, 4 R); one copy, then every reshape is a view
  const Tensor& logits = parts[1];     // (B, A, nc)
  const int64_t A = logits.size(1);
  auto [anchor_cpu, stride_cpu] = make_anchors(sizes, strides, dtype);
  const Tensor anchors = anchor_cpu.to(device), stride_t = stride_cpu.to(device);  // (A, 2), (A, 1)
  const Tensor bins = arange(reg_max, TensorOptions(dtype).set_device(device));
  const Tensor dist = (softmax(pred_dist.reshape({B, A, 4, reg_max}), -1) * bins).sum({-1});  // (B, A, 4)
  const Tensor pred_bboxes = dist2bbox(dist, anchors);                                      // grid units

  const double img_h = imgsz ? static_cast<double>(imgsz->first) : static_cast<double>(sizes[0].first) * strides[0];
  const double img_w = imgsz ? static_cast<double>(imgsz->second) : static_cast<double>(sizes[0].second) * strides[0];
  const PaddedTargets gt = pad_targets(targets, B, nc, img_h, img_w, dtype, device);
  Assignment as;
  {
    NoGradGuard ng;
    as = assign_unchecked(sigmoid(logits.detach()), pred_bboxes.detach() * stride_t, anchors * stride_t, gt.labels,
                          gt.boxes, gt.mask, topk, alpha, beta);
  }
  Tensor score_sum = as.target_scores.sum();  // ()
  double world = 1;
  if (distributed) {  // S over every rank's images (DetectionLoss::distributed)
    Tensor global = score_sum.detach().to(kFloat64);
    distributed::all_reduce(global);
    score_sum = global.to(score_sum.dtype());
    world = distributed::get_world_size();
  }
  score_sum = clamp(score_sum, 1.0, std::nullopt);

  const Tensor cls = nn::functional::binary_cross_entropy_with_logits(logits, as.target_scores, class_weights, "sum") /
                     score_sum;
  // Negatives have weight 0 and finite terms (their target box is all zeros), so they add exact zeros
  // to the sums and their gradients.
  const Tensor weight = as.target_scores.sum({-1});                                          // (B, A)
  const Tensor t_box = as.target_bboxes / stride_t;                                          // (B, A, 4)
  const Tensor box = ((1.0 - bbox_ciou(pred_bboxes, t_box)) * weight).sum() / score_sum;
  const Tensor t_dist = bbox2dist(anchors, t_box, static_cast<double>(reg_max) - 1.01);      // (B, A, 4)
  const Tensor side = distribution_focal_loss(pred_dist.reshape({B * A * 4, reg_max}), t_dist.reshape({B * A * 4}))
                          .reshape({B, A, 4})
                          .mean({-1});
  const Tensor dfl = (side * weight).sum() / score_sum;
  const Tensor items_live = stack({box * box_gain, cls * cls_gain, dfl * dfl_gain}, 0) * world;
  // Times W once more under `distributed`: DDP averages the W ranks' gradients, and the ranks' totals sum
  // to one process's total over all W batches.
  const Tensor total = items_live.sum() * (static_cast<double>(B) * world);
  return {total, items_live.detach()};
}

}  // namespace adept::models::yolo
