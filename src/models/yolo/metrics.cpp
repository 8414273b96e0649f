// COCO-style detection metrics accumulated per image (see metrics.h for the definitions).
#include "adept/models/yolo/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "adept/errors.h"
#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {

constexpr double kEps = 2.220446049250313e-16;  // numpy.spacing(1)

struct Row {
  double x1, y1, x2, y2, score;
  int64_t cls;
};

// (n, cols) floating rows as doubles on the CPU; an empty tensor of any shape gives no rows.
std::vector<double> rows_of(const Tensor& t, int64_t cols, const char* what) {
  if (t.numel() == 0) return {};
  ADEPT_CHECK(t.dim() == 2 && t.size(1) == cols, ShapeError, "DetectionMetrics.update: expected {} of shape (n, {}), got {}",
              what, cols, shape_str(t.sizes()));
  const Tensor c = t.detach().to(kCPU).to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

int64_t class_of(double v) {
  ADEPT_CHECK(v >= 0 && std::isfinite(v), ValueError, "DetectionMetrics.update: class indices must be >= 0, got {}", v);
  return static_cast<int64_t>(std::llround(v));
}

double iou(const Row& a, const Row& b) {
  const double iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  const double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (iw <= 0 || ih <= 0) return 0.0;
  const double inter = iw * ih;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

// AP (mean of the 101 recall-point samples) and the final recall of one class at one threshold;
// `samples` (optional) receives the 101 samples of the precision envelope.
std::pair<double, double> average_precision(const std::vector<char>& tp, int64_t n_gt,
                                            std::array<double, kRecallPoints>* samples = nullptr) {
  const size_t nd = tp.size();
  std::vector<double> rc(nd), pr(nd);
  double tps = 0, fps = 0;
  for (size_t i = 0; i < nd; ++i) {
    (tp[i] ? tps : fps) += 1;
    rc[i] = tps / static_cast<double>(n_gt);
    pr[i] = tps / (tps + fps + kEps);
  }
  for (size_t i = nd; i-- > 1;) pr[i - 1] = std::max(pr[i - 1], pr[i]);
  double sum = 0;
  for (int r = 0; r < kRecallPoints; ++r) {
    const double thr = r == kRecallPoints - 1 ? 1.0 : r * (1.0 / (kRecallPoints - 1));
    const size_t idx = std::lower_bound(rc.begin(), rc.end(), thr) - rc.begin();
    const double v = idx < nd ? pr[idx] : 0.0;
    sum += v;
    if (samples) (*samples)[r] = v;
  }
  return {sum / kRecallPoints, nd ? rc[nd - 1] : 0.0};
}

}  // namespace

std::array<double, kNumIouThresholds> coco_iou_thresholds() {
  std::array<double, kNumIouThresholds> t{};
  const double step = (0.95 - 0.5) / (kNumIouThresholds - 1);
  for (int i = 0; i < kNumIouThresholds; ++i) t[i] = i * step + 0.5;
  t[kNumIouThresholds - 1] = 0.95;
  return t;
}

DetectionMetrics::DetectionMetrics(int64_t max_dets) : max_dets_(max_dets) {
  ADEPT_CHECK(max_dets >= 0, ValueError, "DetectionMetrics: max_dets must be >= 0 (0: no limit), got {}", max_dets);
}

void DetectionMetrics::reset() {
  images_ = 0;
  classes_.clear();
}

void DetectionMetrics::update(const Tensor& preds, const Tensor& targets) {
  const std::vector<double> p = rows_of(preds, 6, "preds [x1, y1, x2, y2, conf, cls]");
  const std::vector<double> g = rows_of(targets, 5, "targets [cls, x1, y1, x2, y2]");
  std::map<int64_t, std::pair<std::vector<Row>, std::vector<Row>>> by_class;  // class -> (dets, gts)
  for (size_t i = 0; i < p.size(); i += 6)
    by_class[class_of(p[i + 5])].first.push_back({p[i], p[i + 1], p[i + 2], p[i + 3], p[i + 4], 0});
  for (size_t i = 0; i < g.size(); i += 5)
    by_class[class_of(g[i])].second.push_back({g[i + 1], g[i + 2], g[i + 3], g[i + 4], 0, 0});
  const auto thresholds = coco_iou_thresholds();
  for (auto& [cls, dg] : by_class) {
    auto& [dets, gts] = dg;
    std::stable_sort(dets.begin(), dets.end(), [](const Row& a, const Row& b) { return a.score > b.score; });
    if (max_dets_ > 0 && static_cast<int64_t>(dets.size()) > max_dets_) dets.resize(max_dets_);
    std::vector<std::vector<double>> ious(dets.size(), std::vector<double>(gts.size()));
    for (size_t d = 0; d < dets.size(); ++d)
      for (size_t k = 0; k < gts.size(); ++k) ious[d][k] = iou(dets[d], gts[k]);
    std::vector<uint16_t> matched(dets.size(), 0);
    for (int t = 0; t < kNumIouThresholds; ++t) {
      std::vector<char> gt_used(gts.size(), 0);
      for (size_t d = 0; d < dets.size(); ++d) {
        double best_iou = std::min(thresholds[t], 1 - 1e-10);
        int64_t best = -1;
        for (size_t k = 0; k < gts.size(); ++k) {
          if (gt_used[k] || ious[d][k] < best_iou) continue;
          best_iou = ious[d][k];
          best = static_cast<int64_t>(k);
        }
        if (best >= 0) {
          gt_used[best] = 1;
          matched[d] |= static_cast<uint16_t>(1u << t);
        }
      }
    }
    ClassData& cd = classes_[cls];
    for (size_t d = 0; d < dets.size(); ++d)
      cd.dets.push_back({dets[d].score, images_, static_cast<int64_t>(d), matched[d]});
    cd.n_gt += static_cast<int64_t>(gts.size());
    cd.n_images += gts.empty() ? 0 : 1;
  }
  ++images_;
}

DetectionResults DetectionMetrics::compute() const {
  DetectionResults r;
  r.iou_thresholds = coco_iou_thresholds();
  r.images = images_;
  // Per class: detections by descending score (stable in image, rank order) and cumulative TP at
  // IoU 0.5 for the precision/recall curve.
  std::vector<std::vector<double>> scores;
  std::vector<std::vector<int64_t>> cum_tp50;
  for (const auto& [cls, cd] : classes_) {
    if (cd.n_gt == 0) continue;
    std::vector<Det> dets = cd.dets;
    std::stable_sort(dets.begin(), dets.end(), [](const Det& a, const Det& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.image != b.image ? a.image < b.image : a.rank < b.rank;
    });
    std::array<double, kNumIouThresholds> ap{}, rec{};
    std::vector<char> tp(dets.size());
    for (int t = 0; t < kNumIouThresholds; ++t) {
      for (size_t i = 0; i < dets.size(); ++i) tp[i] = (dets[i].matched >> t) & 1;
      std::array<double, kRecallPoints> samples{};
      std::tie(ap[t], rec[t]) = average_precision(tp, cd.n_gt, t == 0 ? &samples : nullptr);
      if (t == 0) r.pr_curve.push_back(samples);
    }
    r.classes.push_back(cls);
    r.n_images.push_back(cd.n_images);
    r.n_instances.push_back(cd.n_gt);
    r.instances += cd.n_gt;
    r.ap.push_back(ap);
    r.max_recall.push_back(rec);
    std::vector<double> s(dets.size());
    std::vector<int64_t> c(dets.size());
    int64_t acc = 0;
    for (size_t i = 0; i < dets.size(); ++i) {
      s[i] = dets[i].score;
      c[i] = acc += dets[i].matched & 1;
    }
    scores.push_back(std::move(s));
    cum_tp50.push_back(std::move(c));
  }
  const size_t k = r.classes.size();
  if (k == 0) return r;
  for (size_t c = 0; c < k; ++c) {
    r.map50 += r.ap[c][0];
    r.map75 += r.ap[c][5];
    r.map50_95 += std::accumulate(r.ap[c].begin(), r.ap[c].end(), 0.0) / kNumIouThresholds;
  }
  r.map50 /= k;
  r.map75 /= k;
  r.map50_95 /= k;
  // Precision and recall of class c counting detections with score >= conf.
  auto pr_at = [&](size_t c, double conf) {
    const auto& s = scores[c];
    const size_t n = std::upper_bound(s.begin(), s.end(), conf, [](double v, double x) { return v > x; }) - s.begin();
    // n = number of scores >= conf (scores are descending).
    const double tp = n ? static_cast<double>(cum_tp50[c][n - 1]) : 0.0;
    // No detection above conf: precision 1 (the envelope's left end), but 0 for a class that has no
    // detection at all (Ultralytics leaves such a class at P = R = 0).
    const double p = n ? tp / static_cast<double>(n) : s.empty() ? 0.0 : 1.0;
    return std::pair<double, double>{p, tp / static_cast<double>(r.n_instances[c])};
  };
  double best_f1 = -1;
  for (int j = 0; j < kConfPoints; ++j) {
    const double conf = static_cast<double>(j) / kConfPoints;
    double f1 = 0;
    for (size_t c = 0; c < k; ++c) {
      const auto [p, rc] = pr_at(c, conf);
      f1 += 2 * p * rc / (p + rc + 1e-16);
    }
    if (f1 > best_f1) {
      best_f1 = f1;
      r.best_conf = conf;
    }
  }
  r.p_curve.assign(k, std::vector<double>(kConfPoints));
  r.r_curve.assign(k, std::vector<double>(kConfPoints));
  for (size_t c = 0; c < k; ++c)
    for (int j = 0; j < kConfPoints; ++j)
      std::tie(r.p_curve[c][j], r.r_curve[c][j]) = pr_at(c, static_cast<double>(j) / kConfPoints);
  for (size_t c = 0; c < k; ++c) {
    const auto [p, rc] = pr_at(c, r.best_conf);
    r.precision.push_back(p);
    r.recall.push_back(rc);
    r.mp += p / k;
    r.mr += rc / k;
  }
  return r;
}

std::string DetectionResults::table(const std::vector<std::string>& names) const {
  std::string out = fmt::format("{:>22}{:>11}{:>11}{:>11}{:>11}{:>11}{:>11}\n", "Class", "Images", "Instances", "P", "R",
                                "mAP50", "mAP50-95");
  out += fmt::format("{:>22}{:>11}{:>11}{:>11.3f}{:>11.3f}{:>11.3f}{:>11.3f}\n", "all", images, instances, mp, mr,
                     map50, map50_95);
  for (size_t c = 0; c < classes.size(); ++c) {
    const int64_t id = classes[c];
    const std::string name = id < static_cast<int64_t>(names.size()) ? names[id] : std::to_string(id);
    const double ap5095 = std::accumulate(ap[c].begin(), ap[c].end(), 0.0) / kNumIouThresholds;
    out += fmt::format("{:>22}{:>11}{:>11}{:>11.3f}{:>11.3f}{:>11.3f}{:>11.3f}\n", name, n_images[c], n_instances[c],
                       precision[c], recall[c], ap[c][0], ap5095);
  }
  return out;
}

}  // namespace adept::models::yolo
