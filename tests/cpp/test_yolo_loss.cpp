// The YOLO11 detection loss (include/adept/models/yolo/loss.h) against hand computations: CIoU of
// known boxes and its gradient by finite differences, DFL values and gradcheck, the task-aligned
// assigner on a tiny grid, zero-target images and batches, class weights and input errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <numbers>

#include "adept/adept.h"
#include "adept/models/yolo/loss.h"
#include "adept/models/yolo/yolo11.h"
#include "gradcheck.h"
#include "models/yolo/box_ops.h"

namespace adept::testing {
namespace {

using namespace adept::models::yolo;

/// CIoU of two xyxy boxes written out from the sheet's formula; alpha_fixed >= 0 replaces alpha.
double ciou_formula(const double* a, const double* b, double alpha_fixed = -1) {
  const double eps = 1e-7;
  const double w1 = a[2] - a[0], h1 = a[3] - a[1] + eps, w2 = b[2] - b[0], h2 = b[3] - b[1] + eps;
  const double iw = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double ih = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double inter = iw * ih, iou = inter / (w1 * h1 + w2 * h2 - inter + eps);
  const double cw = std::max(a[2], b[2]) - std::min(a[0], b[0]), ch = std::max(a[3], b[3]) - std::min(a[1], b[1]);
  const double c2 = cw * cw + ch * ch + eps;
  const double cx = (b[0] + b[2]) / 2 - (a[0] + a[2]) / 2, cy = (b[1] + b[3]) / 2 - (a[1] + a[3]) / 2;
  const double v = 4 / (std::numbers::pi * std::numbers::pi) * std::pow(std::atan(w2 / h2) - std::atan(w1 / h1), 2);
  const double alpha = alpha_fixed >= 0 ? alpha_fixed : v / (v - iou + 1 + eps);
  return iou - ((cx * cx + cy * cy) / c2 + v * alpha);
}

double alpha_of(const double* a, const double* b) {
  const double eps = 1e-7;
  const double w1 = a[2] - a[0], h1 = a[3] - a[1] + eps, w2 = b[2] - b[0], h2 = b[3] - b[1] + eps;
  const double iw = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double ih = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double iou = iw * ih / (w1 * h1 + w2 * h2 - iw * ih + eps);
  const double v = 4 / (std::numbers::pi * std::numbers::pi) * std::pow(std::atan(w2 / h2) - std::atan(w1 / h1), 2);
  return v / (v - iou + 1 + eps);
}

const std::vector<std::array<double, 8>> kBoxPairs = {
    {0, 0, 4, 2, 1, 1, 5, 4},        // partial overlap, different aspect ratios
    {0, 0, 10, 10, 0, 0, 10, 10},    // identical
    {0, 0, 2, 2, 5, 6, 9, 7},        // disjoint
    {1, 1, 3, 7, 0, 2, 8, 5},        // crossing
    {2.5, 1.5, 6, 4, 3, 2, 5.5, 3.5}  // one inside the other
};

TEST(YoloLoss, CiouMatchesFormula) {
  std::vector<double> a, b;
  for (const auto& p : kBoxPairs) {
    a.insert(a.end(), p.begin(), p.begin() + 4);
    b.insert(b.end(), p.begin() + 4, p.end());
  }
  const int64_t n = static_cast<int64_t>(kBoxPairs.size());
  for (Dtype dt : {kFloat64, kFloat32}) {
    Tensor c = bbox_ciou(tensor(a, dt).reshape({n, 4}), tensor(b, dt).reshape({n, 4}));
    ASSERT_EQ(c.sizes(), Shape({n}));
    for (int64_t i = 0; i < n; ++i) {
      const double expect = ciou_formula(&a[i * 4], &b[i * 4]);
      EXPECT_NEAR(c.select(0, i).item<double>(), expect, dt == kFloat64 ? 1e-12 : 1e-6) << "pair " << i;
    }
  }
  // Identical boxes: CIoU 1; symmetric in its arguments; broadcasting (2, 1, 4) x (1, 3, 4) -> (2, 3).
  const Tensor square = tensor(std::vector<double>{0, 0, 10, 10});
  EXPECT_NEAR(bbox_ciou(square, square).item<double>(), 1.0, 1e-6);
  Tensor A = tensor(a, kFloat64).reshape({n, 4}), Bx = tensor(b, kFloat64).reshape({n, 4});
  EXPECT_TRUE(allclose(bbox_ciou(A, Bx), bbox_ciou(Bx, A), 1e-12, 1e-12));
  EXPECT_EQ(bbox_ciou(A.narrow(0, 0, 2).unsqueeze(1), Bx.narrow(0, 0, 3).unsqueeze(0)).sizes(), Shape({2, 3}));
  EXPECT_THROW(bbox_ciou(zeros({3, 3}), zeros({3, 4})), ShapeError);
}

// alpha is a constant for autograd: the gradient equals the finite differences of the formula with
// alpha frozen at its value at the point.
TEST(YoloLoss, CiouGradientByFiniteDifferences) {
  for (size_t k = 0; k < kBoxPairs.size(); ++k) {
    if (k == 1) continue;  // identical boxes: min/max ties, not differentiable
    const auto& p = kBoxPairs[k];
    std::vector<double> a(p.begin(), p.begin() + 4), b(p.begin() + 4, p.end());
    Tensor ta = tensor(a, kFloat64).requires_grad_(), tb = tensor(b, kFloat64).requires_grad_();
    bbox_ciou(ta, tb).backward();
    const double alpha = alpha_of(a.data(), b.data()), h = 1e-6;
    for (int which = 0; which < 2; ++which) {
      std::vector<double>& x = which == 0 ? a : b;
      Tensor g = (which == 0 ? ta : tb).grad();
      for (int j = 0; j < 4; ++j) {
        const double keep = x[j];
        x[j] = keep + h;
        const double up = ciou_formula(a.data(), b.data(), alpha);
        x[j] = keep - h;
        const double down = ciou_formula(a.data(), b.data(), alpha);
        x[j] = keep;
        EXPECT_NEAR(g.select(0, j).item<double>(), (up - down) / (2 * h), 1e-6)
            << "pair " << k << " box " << which << " coord " << j;
      }
    }
  }
}

TEST(YoloLoss, DflValuesAndGradcheck) {
  manual_seed(3);
  Tensor logits = randn({5, 16}, kFloat64);
  Tensor target = tensor(std::vector<double>{0.0, 3.0, 7.25, 14.99, 10.5}, kFloat64);
  Tensor loss = distribution_focal_loss(logits, target);
  Tensor logp = log_softmax(logits, -1);
  const std::vector<double> y = {0.0, 3.0, 7.25, 14.99, 10.5};
  for (int64_t i = 0; i < 5; ++i) {
    const int64_t l = static_cast<int64_t>(std::floor(y[i]));
    const double wl = l + 1 - y[i];
    const double expect = -(logp.select(0, i).select(0, l).item<double>() * wl +
                            logp.select(0, i).select(0, l + 1).item<double>() * (1 - wl));
    EXPECT_NEAR(loss.select(0, i).item<double>(), expect, 1e-12) << i;
  }
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return distribution_focal_loss(in[0], target); },
                        {logits.clone().requires_grad_()}));
  // dist2bbox and bbox2dist invert each other inside the clamp range.
  Tensor anchors = tensor(std::vector<double>{2.5, 3.5, 0.5, 0.5}, kFloat64).reshape({2, 2});
  Tensor dist = tensor(std::vector<double>{1, 2, 3, 0.5, 0.25, 0.25, 4, 5}, kFloat64).reshape({2, 4});
  EXPECT_TRUE(allclose(bbox2dist(anchors, dist2bbox(dist, anchors), 14.99), dist, 1e-12, 1e-12));
  // Targets further than reg_max - 1.01 bins or behind the anchor clamp to [0, 14.99].
  Tensor far = tensor(std::vector<double>{-20, 4, 2, 40}, kFloat64);
  EXPECT_TRUE(allclose(bbox2dist(anchors.select(0, 0), far, 14.99),
                       tensor(std::vector<double>{14.99, 0, 0, 14.99}, kFloat64), 1e-12, 1e-12));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return dist2bbox(in[0], anchors); },
                        {dist.clone().requires_grad_()}));
}

// A 4x4 grid of stride 8 (anchor centres 4, 12, 20, 28 px): two overlapping gts, a padding row and
// a second image without gts.
TEST(YoloLoss, AssignerPicksExpectedAnchors) {
  const int64_t A = 16, nc = 3;
  auto [pts, strides] = make_anchors({{4, 4}}, {8.0}, kFloat64);
  Tensor anchors = pts * strides;
  const std::vector<double> g0 = {0, 0, 16, 16}, g1 = {8, 0, 24, 16}, far = {100, 100, 110, 110};
  std::vector<double> pred(2 * A * 4);
  for (int64_t a = 0; a < 2 * A; ++a) std::copy(far.begin(), far.end(), &pred[a * 4]);
  auto set = [&](int64_t a, std::vector<double> box) { std::copy(box.begin(), box.end(), &pred[a * 4]); };
  set(0, g0);                 // in g0 only, perfect
  set(4, {2, 2, 18, 18});     // in g0 only, shifted
  set(5, g0);                 // in both, matches g0
  set(1, g1);                 // in both, matches g1
  set(2, {9, 1, 23, 15});     // in g1 only
  set(6, {6, 0, 22, 16});     // in g1 only
  Tensor pred_boxes = tensor(pred, kFloat64).reshape({2, A, 4});
  Tensor scores = full({2, A, nc}, 0.5, kFloat64);
  Tensor labels = tensor(std::vector<int64_t>{0, 2, 1, 0, 0, 0}).reshape({2, 3});
  Tensor gtb = tensor(std::vector<double>{0, 0, 16, 16, 8, 0, 24, 16, 0, 0, 30, 30,  // image 0 (row 3 padding)
                                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                      kFloat64).reshape({2, 3, 4});
  Tensor mask = tensor(std::vector<bool>{true, true, false, false, false, false}).reshape({2, 3});
  Assignment as = task_aligned_assign(scores, pred_boxes, anchors, labels, gtb, mask);
  const std::map<int64_t, int64_t> expect = {{0, 0}, {4, 0}, {5, 0}, {1, 1}, {2, 1}, {6, 1}};
  auto ciou_of = [&](int64_t a, const std::vector<double>& g) {
    return std::max(0.0, ciou_formula(g.data(), &pred[a * 4]));
  };
  // Expected normalised scores: t = 0.5^0.5 CIoU^6; score = t max CIoU / (max t + 1e-9) per gt.
  std::map<int64_t, double> max_t, max_iou;
  for (auto [a, g] : expect) {
    const double iou = ciou_of(a, g == 0 ? g0 : g1);
    max_t[g] = std::max(max_t[g], std::sqrt(0.5) * std::pow(iou, 6));
    max_iou[g] = std::max(max_iou[g], iou);
  }
  for (int64_t a = 0; a < A; ++a) {
    auto it = expect.find(a);
    const bool positive = it != expect.end();
    EXPECT_EQ(as.fg_mask.select(0, 0).select(0, a).item<bool>(), positive) << a;
    EXPECT_EQ(as.target_gt_idx.select(0, 0).select(0, a).item<int64_t>(), positive ? it->second : -1) << a;
    for (int64_t c = 0; c < nc; ++c) {
      double s = 0;
      if (positive && c == (it->second == 0 ? 0 : 2)) {
        const double iou = ciou_of(a, it->second == 0 ? g0 : g1);
        s = std::sqrt(0.5) * std::pow(iou, 6) * max_iou[it->second] / (max_t[it->second] + 1e-9);
      }
      EXPECT_NEAR(as.target_scores.select(0, 0).select(0, a).select(0, c).item<double>(), s, 1e-9) << a << " " << c;
    }
    if (positive) {
      const std::vector<double>& g = it->second == 0 ? g0 : g1;
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(as.target_bboxes.select(0, 0).select(0, a).select(0, j).item<double>(), g[j]);
      }
    }
  }
  EXPECT_FALSE(any(as.fg_mask.select(0, 1)).item<bool>());
  EXPECT_EQ(as.target_scores.select(0, 1).abs().sum().item<double>(), 0.0);
  // topk = 2: each gt keeps its two best-aligned anchors (g0: 0 and 5; g1: 1 and 6).
  Assignment top2 = task_aligned_assign(scores, pred_boxes, anchors, labels, gtb, mask, 2);
  std::vector<int64_t> fg;
  for (int64_t a = 0; a < A; ++a) {
    if (top2.fg_mask.select(0, 0).select(0, a).item<bool>()) fg.push_back(a);
  }
  EXPECT_EQ(fg, (std::vector<int64_t>{0, 1, 5, 6}));
  EXPECT_THROW(task_aligned_assign(scores, pred_boxes, anchors, labels + 5, gtb, mask), IndexError);
  EXPECT_THROW(task_aligned_assign(scores, pred_boxes.narrow(1, 0, 3), anchors, labels, gtb, mask), ShapeError);
}

std::vector<Tensor> random_maps(int64_t B, int64_t nc, int64_t h, int64_t w, Dtype dt = kFloat32) {
  std::vector<Tensor> maps;
  for (int64_t s : {8, 16, 32}) maps.push_back((randn({B, 64 + nc, h / s, w / s}, dt) * 2.0).requires_grad_());
  return maps;
}

bool all_finite(const Tensor& t) { return all(isfinite(t)).item<bool>(); }

TEST(YoloLoss, ZeroTargetBatchIsFiniteAndClsOnly) {
  manual_seed(11);
  std::vector<Tensor> maps = random_maps(2, 3, 64, 96);
  DetectionLoss crit(3);
  auto [loss, items] = crit(maps, zeros({0, 6}));
  ASSERT_EQ(items.sizes(), Shape({3}));
  EXPECT_EQ(items.select(0, 0).item<double>(), 0.0);
  EXPECT_EQ(items.select(0, 2).item<double>(), 0.0);
  // All targets negative, S = 1: cls = sum softplus(logits) over every anchor and class.
  double expect = 0;
  for (const Tensor& m : maps) expect += softplus(m.detach().narrow(1, 64, 3)).sum().item<double>();
  EXPECT_NEAR(items.select(0, 1).item<double>(), 0.5 * expect, 1e-4 * expect);
  EXPECT_NEAR(loss.item<double>(), 2 * 0.5 * expect, 1e-4 * expect);
  loss.backward();
  for (const Tensor& m : maps) {
    ASSERT_TRUE(m.grad().defined());
    EXPECT_TRUE(all_finite(m.grad()));
  }
  // The model end to end: a batch without targets gives finite loss and parameter gradients.
  Yolo11 model("n", 3);
  model.train();
  auto [mloss, mitems] = DetectionLoss(model)(model.forward_maps(randn({2, 3, 64, 64})), zeros({0, 6}));
  EXPECT_TRUE(all_finite(mitems));
  mloss.backward();
  for (const Tensor& p : model.parameters()) {
    if (p.grad().defined()) {
      EXPECT_TRUE(all_finite(p.grad()));
    }
  }
}

TEST(YoloLoss, TargetsGiveFiniteLossGradientsAndClassWeights) {
  manual_seed(12);
  std::vector<Tensor> maps = random_maps(3, 4, 64, 64);
  // Image 1 has no targets; boxes of several sizes, one touching the border.
  Tensor targets = tensor(std::vector<double>{0, 1, 0.5, 0.5, 0.4, 0.6,   //
                                              0, 3, 0.2, 0.3, 0.15, 0.2,  //
                                              2, 0, 0.7, 0.6, 0.5, 0.5,   //
                                              2, 2, 0.1, 0.9, 0.2, 0.2},
                          kFloat32).reshape({4, 6});
  DetectionLoss crit(4);
  auto [loss, items] = crit(maps, targets);
  EXPECT_TRUE(all_finite(items));
  for (int i = 0; i < 3; ++i) EXPECT_GT(items.select(0, i).item<double>(), 0.0) << i;
  EXPECT_NEAR(loss.item<double>(), 3 * items.sum().item<double>(), 1e-5 * loss.item<double>());
  loss.backward();
  for (const Tensor& m : maps) EXPECT_TRUE(all_finite(m.grad()));
  // Class weights scale each class's BCE terms: all 2 doubles cls, all 0 removes it; box and dfl stay.
  DetectionLoss weighted(4);
  weighted.class_weights = full({4}, 2.0);
  auto [l2, items2] = weighted(maps, targets);
  EXPECT_NEAR(items2.select(0, 1).item<double>(), 2 * items.select(0, 1).item<double>(), 1e-5);
  EXPECT_NEAR(items2.select(0, 0).item<double>(), items.select(0, 0).item<double>(), 1e-6);
  weighted.class_weights = zeros({4});
  EXPECT_EQ(weighted(maps, targets).second.select(0, 1).item<double>(), 0.0);
  // An explicit image size equal to the default changes nothing.
  EXPECT_TRUE(allclose(crit(maps, targets, std::pair<int64_t, int64_t>{64, 64}).second, items, 0, 0));
}

TEST(YoloLoss, BadInputsRaise) {
  std::vector<Tensor> maps = random_maps(2, 4, 64, 64);
  DetectionLoss crit(4);
  EXPECT_THROW(crit(maps, zeros({3, 5})), ShapeError);
  EXPECT_THROW(crit(maps, tensor(std::vector<double>{2, 0, 0.5, 0.5, 0.1, 0.1}).reshape({1, 6})), IndexError);
  EXPECT_THROW(crit(maps, tensor(std::vector<double>{0, 4, 0.5, 0.5, 0.1, 0.1}).reshape({1, 6})), IndexError);
  EXPECT_THROW(crit({maps[0], maps[1]}, zeros({0, 6})), ValueError);
  EXPECT_THROW(DetectionLoss(5)(maps, zeros({0, 6})), ValueError);
  EXPECT_THROW(DetectionLoss(0), ValueError);
}

}  // namespace
}  // namespace adept::testing
