// Detection post-processing: NMS of decoded YOLO predictions, box IoU and scale_boxes (see nms.h).
#include "adept/models/yolo/nms.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "adept/errors.h"
#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {

using Box = std::array<double, 4>;

double iou_xyxy(const Box& a, const Box& b) {
  const double iw = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double ih = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double inter = iw * ih;
  const double uni = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return uni > 0 ? inter / uni : 0.0;
}

struct Candidate {
  Box box;
  double conf;
  int64_t cls;
};

// The candidates of one image: `p` points at its (4 + nc, A) block (row stride A).
std::vector<Candidate> candidates_of(const double* p, int64_t nc, int64_t a_count, const NmsOptions& o) {
  const bool multi = o.multi_label && nc > 1;
  auto wanted = [&](int64_t c) {
    return o.classes.empty() || std::find(o.classes.begin(), o.classes.end(), c) != o.classes.end();
  };
  std::vector<Candidate> out;
  for (int64_t a = 0; a < a_count; ++a) {
    const double cx = p[a], cy = p[a_count + a], w = p[2 * a_count + a], h = p[3 * a_count + a];
    const Box box{cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
    if (multi) {
      for (int64_t c = 0; c < nc; ++c) {
        const double s = p[(4 + c) * a_count + a];
        if (s > o.conf_thres && wanted(c)) out.push_back({box, s, c});
      }
    } else {
      int64_t best = 0;
      for (int64_t c = 1; c < nc; ++c)
        if (p[(4 + c) * a_count + a] > p[(4 + best) * a_count + a]) best = c;
      const double s = p[(4 + best) * a_count + a];
      if (s > o.conf_thres && wanted(best)) out.push_back({box, s, best});
    }
  }
  return out;
}

// Greedy NMS of one image's candidates; returns the kept ones by descending score.
std::vector<Candidate> nms_image(std::vector<Candidate> cand, const NmsOptions& o) {
  std::vector<int64_t> order(cand.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return cand[i].conf > cand[j].conf; });
  if (static_cast<int64_t>(order.size()) > o.max_nms) order.resize(o.max_nms);
  std::vector<Candidate> kept;
  std::vector<char> removed(order.size(), 0);
  for (size_t i = 0; i < order.size() && static_cast<int64_t>(kept.size()) < o.max_det; ++i) {
    if (removed[i]) continue;
    const Candidate& ci = cand[order[i]];
    kept.push_back(ci);
    for (size_t j = i + 1; j < order.size(); ++j) {
      if (removed[j]) continue;
      const Candidate& cj = cand[order[j]];
      if (!o.agnostic && cj.cls != ci.cls) continue;
      if (iou_xyxy(ci.box, cj.box) > o.iou_thres) removed[j] = 1;
    }
  }
  return kept;
}

void check_boxes(const Tensor& boxes, const char* op, int64_t min_cols) {
  ADEPT_CHECK(boxes.dim() == 2 && boxes.size(1) >= min_cols, ShapeError,
              "{}: expected boxes of shape (n, {}{}), got {}", op, min_cols, min_cols == 4 ? "" : "+",
              shape_str(boxes.sizes()));
  ADEPT_CHECK(is_floating_point(boxes.dtype()), DtypeError, "{}: expected floating boxes, got {}", op,
              dtype_name(boxes.dtype()));
}

Tensor scale_boxes_impl(const Tensor& boxes, double gain, double pad_x, double pad_y,
                        const std::vector<int64_t>& orig_shape) {
  check_boxes(boxes, "scale_boxes", 4);
  ADEPT_CHECK(orig_shape.size() == 2 && orig_shape[0] > 0 && orig_shape[1] > 0, ValueError,
              "scale_boxes: orig_shape must be (h, w) with positive sizes, got {}", shape_str(orig_shape));
  ADEPT_CHECK(gain > 0 && std::isfinite(gain), ValueError, "scale_boxes: gain must be > 0, got {}", gain);
  Tensor b = boxes.detach().to(kCPU).to(kFloat64, true).contiguous();
  double* p = b.data_ptr<double>();
  const int64_t n = b.size(0), cols = b.size(1);
  const double w = static_cast<double>(orig_shape[1]), h = static_cast<double>(orig_shape[0]);
  for (int64_t i = 0; i < n; ++i) {
    double* r = p + i * cols;
    r[0] = std::clamp((r[0] - pad_x) / gain, 0.0, w);
    r[2] = std::clamp((r[2] - pad_x) / gain, 0.0, w);
    r[1] = std::clamp((r[1] - pad_y) / gain, 0.0, h);
    r[3] = std::clamp((r[3] - pad_y) / gain, 0.0, h);
  }
  return b.to(boxes.dtype()).to(boxes.device());
}

}  // namespace

std::vector<Tensor> non_max_suppression(const Tensor& preds, const NmsOptions& options) {
  ADEPT_CHECK(preds.dim() == 3 && preds.size(1) >= 5, ShapeError,
              "non_max_suppression: expected preds of shape (B, 4 + nc, A) with nc >= 1, got {}", shape_str(preds.sizes()));
  ADEPT_CHECK(is_floating_point(preds.dtype()), DtypeError,
              "non_max_suppression: expected floating preds, got {}", dtype_name(preds.dtype()));
  ADEPT_CHECK(options.iou_thres >= 0 && options.iou_thres <= 1, ValueError,
              "non_max_suppression: iou_thres must be in [0, 1], got {}", options.iou_thres);
  ADEPT_CHECK(options.max_det >= 0 && options.max_nms >= 1, ValueError,
              "non_max_suppression: expected max_det >= 0 and max_nms >= 1, got {} and {}", options.max_det,
              options.max_nms);
  const Tensor p = preds.detach().to(kCPU).to(kFloat64).contiguous();
  const int64_t batch = p.size(0), rows = p.size(1), a_count = p.size(2), nc = rows - 4;
  const double* base = p.data_ptr<double>();
  std::vector<Tensor> out;
  out.reserve(batch);
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<Candidate> kept = nms_image(candidates_of(base + b * rows * a_count, nc, a_count, options), options);
    std::vector<double> flat;
    flat.reserve(kept.size() * 6);
    for (const Candidate& c : kept) {
      flat.insert(flat.end(), c.box.begin(), c.box.end());
      flat.push_back(c.conf);
      flat.push_back(static_cast<double>(c.cls));
    }
    Tensor t = from_blob_copy(flat.data(), {static_cast<int64_t>(kept.size()), 6}, kFloat64);
    out.push_back(t.to(preds.dtype()).to(preds.device()));
  }
  return out;
}

Tensor box_iou(const Tensor& box1, const Tensor& box2, double eps) {
  ADEPT_CHECK(box1.dim() == 2 && box1.size(1) == 4 && box2.dim() == 2 && box2.size(1) == 4, ShapeError,
              "box_iou: expected boxes of shapes (N, 4) and (M, 4), got {} and {}", shape_str(box1.sizes()), shape_str(box2.sizes()));
  const Tensor a1 = unsqueeze(narrow(box1, 1, 0, 2), 1), a2 = unsqueeze(narrow(box1, 1, 2, 2), 1);  // (N, 1, 2)
  const Tensor b1 = unsqueeze(narrow(box2, 1, 0, 2), 0), b2 = unsqueeze(narrow(box2, 1, 2, 2), 0);  // (1, M, 2)
  const Tensor inter = prod(clamp(minimum(a2, b2) - maximum(a1, b1), Scalar(0.0), std::nullopt), 2);
  return inter / (prod(a2 - a1, 2) + prod(b2 - b1, 2) - inter + Scalar(eps));
}

Tensor scale_boxes(const Tensor& boxes, const Tensor& ratio_pad, const std::vector<int64_t>& orig_shape) {
  ADEPT_CHECK(ratio_pad.numel() == 3, ShapeError, "scale_boxes: expected ratio_pad (gain, pad_x, pad_y) of 3 values, got {}",
              shape_str(ratio_pad.sizes()));
  const Tensor rp = ratio_pad.detach().to(kCPU).to(kFloat64).contiguous();
  const double* r = rp.data_ptr<double>();
  return scale_boxes_impl(boxes, r[0], r[1], r[2], orig_shape);
}

Tensor scale_boxes(const std::vector<int64_t>& input_shape, const Tensor& boxes, const std::vector<int64_t>& orig_shape) {
  ADEPT_CHECK(input_shape.size() == 2 && input_shape[0] > 0 && input_shape[1] > 0 && orig_shape.size() == 2 &&
                  orig_shape[0] > 0 && orig_shape[1] > 0,
              ValueError, "scale_boxes: input_shape and orig_shape must be (h, w) with positive sizes, got {} and {}",
              shape_str(input_shape), shape_str(orig_shape));
  const double gain = std::min(static_cast<double>(input_shape[0]) / orig_shape[0],
                               static_cast<double>(input_shape[1]) / orig_shape[1]);
  const double pad_x = std::nearbyint((input_shape[1] - orig_shape[1] * gain) / 2 - 0.1);
  const double pad_y = std::nearbyint((input_shape[0] - orig_shape[0] * gain) / 2 - 0.1);
  return scale_boxes_impl(boxes, gain, pad_x, pad_y, orig_shape);
}

}  // namespace adept::models::yolo
