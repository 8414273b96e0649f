// Detection post-processing and metrics on hand-made cases: NMS (suppression per class, agnostic,
// thresholds, max_det, multi_label), box_iou, scale_boxes round trips through a letterbox, and COCO
// AP values derived in the tests from the 101-point definition.
#include <gtest/gtest.h>

#include <cmath>

#include "adept/adept.h"
#include "adept/models/yolo/metrics.h"
#include "adept/models/yolo/nms.h"

namespace adept::testing {
namespace {

using namespace adept::models::yolo;

// preds (1, 4 + nc, A) from per-anchor rows {cx, cy, w, h, s_0 .. s_nc-1}.
Tensor make_preds(const std::vector<std::vector<float>>& anchors) {
  const int64_t rows = static_cast<int64_t>(anchors[0].size()), a = static_cast<int64_t>(anchors.size());
  std::vector<float> flat(rows * a);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t r = 0; r < rows; ++r) flat[r * a + i] = anchors[i][r];
  return from_blob_copy(flat.data(), {1, rows, a}, kFloat32);
}

std::vector<std::vector<double>> rows_of(const Tensor& t) {
  const Tensor c = t.to(kFloat64).contiguous();
  std::vector<std::vector<double>> out;
  for (int64_t i = 0; i < c.size(0); ++i) {
    const double* p = c.data_ptr<double>() + i * c.size(1);
    out.emplace_back(p, p + c.size(1));
  }
  return out;
}

Tensor boxes(const std::vector<std::vector<double>>& rows, int64_t cols) {
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return from_blob_copy(flat.data(), {static_cast<int64_t>(rows.size()), cols}, kFloat64).to(kFloat32);
}

// The 101-point COCO AP of a ranked list (tp flags by descending score) with n_gt ground truths,
// written directly from the definition: p_interp(r) = max precision at recall >= r, 0 if none.
double ap_101(const std::vector<int>& tp, int n_gt) {
  std::vector<double> rc, pr;
  double t = 0;
  for (size_t i = 0; i < tp.size(); ++i) {
    t += tp[i];
    rc.push_back(t / n_gt);
    pr.push_back(t / static_cast<double>(i + 1));
  }
  double sum = 0;
  for (int k = 0; k <= 100; ++k) {
    double best = 0;
    for (size_t i = 0; i < rc.size(); ++i)
      if (rc[i] >= k / 100.0 - 1e-12) best = std::max(best, pr[i]);
    sum += best;
  }
  return sum / 101;
}

TEST(YoloNms, SuppressesSameClassKeepsOtherClass) {
  // Anchors: A class 0 (0.9), B class 0 overlapping A with IoU 0.8 (0.8), C class 1 at A (0.7),
  // D class 0 far away (0.6).
  const Tensor p = make_preds({{50, 50, 100, 100, 0.9f, 0.1f},
                               {50, 40, 100, 100, 0.8f, 0.0f},
                               {50, 50, 100, 100, 0.0f, 0.7f},
                               {300, 300, 20, 20, 0.6f, 0.0f}});
  const auto out = non_max_suppression(p);
  ASSERT_EQ(out.size(), 1u);
  const auto r = rows_of(out[0]);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0][4], 0.9, 1e-6);
  EXPECT_NEAR(r[1][4], 0.7, 1e-6);
  EXPECT_EQ(r[1][5], 1.0);
  EXPECT_NEAR(r[2][4], 0.6, 1e-6);
  // xywh -> xyxy.
  EXPECT_EQ(r[0][0], 0.0);
  EXPECT_EQ(r[0][1], 0.0);
  EXPECT_EQ(r[0][2], 100.0);
  EXPECT_EQ(r[0][3], 100.0);
  EXPECT_EQ(r[2][0], 290.0);
  EXPECT_EQ(r[2][3], 310.0);

  NmsOptions agn;
  agn.agnostic = true;
  EXPECT_EQ(non_max_suppression(p, agn)[0].size(0), 2);  // C suppressed by A
  NmsOptions loose;
  loose.iou_thres = 0.85;  // IoU(A, B) = 90*100 / (2*10000 - 9000) = 0.818 is kept
  EXPECT_EQ(non_max_suppression(p, loose)[0].size(0), 4);
  NmsOptions only1;
  only1.classes = {1};
  const auto r1 = rows_of(non_max_suppression(p, only1)[0]);
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_EQ(r1[0][5], 1.0);
}

TEST(YoloNms, ConfThresholdIsStrictAndMultiLabel) {
  const Tensor p = make_preds({{10, 10, 4, 4, 0.25f, 0.0f}, {50, 50, 4, 4, 0.2f, 0.26f}, {90, 90, 4, 4, 0.6f, 0.5f}});
  auto r = rows_of(non_max_suppression(p)[0]);
  ASSERT_EQ(r.size(), 2u);  // 0.25 is not > 0.25
  EXPECT_NEAR(r[0][4], 0.6, 1e-6);
  EXPECT_EQ(r[0][5], 0.0);
  EXPECT_NEAR(r[1][4], 0.26, 1e-6);
  EXPECT_EQ(r[1][5], 1.0);
  NmsOptions ml;
  ml.multi_label = true;
  r = rows_of(non_max_suppression(p, ml)[0]);
  ASSERT_EQ(r.size(), 3u);  // the third anchor gives both classes (NMS is per class)
  EXPECT_NEAR(r[1][4], 0.5, 1e-6);
  EXPECT_EQ(r[1][5], 1.0);
  EXPECT_EQ(r[1][0], r[0][0]);
  NmsOptions low;
  low.conf_thres = 0.001;
  EXPECT_EQ(non_max_suppression(p, low)[0].size(0), 3);
}

TEST(YoloNms, MaxDetMaxNmsBatchAndErrors) {
  std::vector<std::vector<float>> anchors;
  for (int i = 0; i < 6; ++i) anchors.push_back({20.0f * i + 5, 5, 8, 8, 0.3f + 0.1f * i});
  const Tensor one = make_preds(anchors);
  NmsOptions o;
  o.max_det = 3;
  auto r = rows_of(non_max_suppression(one, o)[0]);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0][4], 0.8, 1e-6);
  EXPECT_NEAR(r[2][4], 0.6, 1e-6);
  NmsOptions cap;
  cap.max_nms = 2;
  EXPECT_EQ(non_max_suppression(one, cap)[0].size(0), 2);
  // Batch of two, the second image without any candidate.
  const Tensor batch = cat({one, zeros_like(one)}, 0);
  const auto out = non_max_suppression(batch);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].size(0), 6);
  EXPECT_EQ(out[1].sizes(), (Shape{0, 6}));
  EXPECT_EQ(out[0].dtype(), kFloat32);
  // A non-contiguous float64 view of the same predictions gives the same boxes.
  const Tensor strided = one.transpose(1, 2).contiguous().to(kFloat64).transpose(1, 2);
  ASSERT_FALSE(strided.is_contiguous());
  const auto rs = rows_of(non_max_suppression(strided)[0]), r0 = rows_of(out[0]);
  ASSERT_EQ(rs.size(), r0.size());
  for (size_t i = 0; i < rs.size(); ++i)
    for (size_t j = 0; j < 6; ++j) EXPECT_NEAR(rs[i][j], r0[i][j], 1e-6);
  EXPECT_THROW(non_max_suppression(zeros({4, 5})), ShapeError);
  EXPECT_THROW(non_max_suppression(zeros({1, 4, 3})), ShapeError);
  EXPECT_THROW(non_max_suppression(zeros({1, 6, 3}, kInt64)), DtypeError);
  NmsOptions bad;
  bad.iou_thres = 1.5;
  EXPECT_THROW(non_max_suppression(one, bad), ValueError);
}

TEST(YoloNms, BoxIou) {
  const Tensor a = boxes({{0, 0, 2, 2}, {10, 10, 11, 11}}, 4);
  const Tensor b = boxes({{1, 1, 3, 3}, {0, 0, 2, 2}, {5, 5, 6, 6}}, 4);
  const auto r = rows_of(box_iou(a, b));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0][0], 1.0 / 7.0, 1e-6);
  EXPECT_NEAR(r[0][1], 1.0, 1e-6);
  EXPECT_NEAR(r[0][2], 0.0, 1e-9);
  EXPECT_NEAR(r[1][0], 0.0, 1e-9);
  EXPECT_THROW(box_iou(zeros({2, 3}), b), ShapeError);
}

TEST(YoloNms, ScaleBoxesLetterboxRoundTrip) {
  // A 300 x 400 (h, w) image letterboxed into 640 x 640: gain 1.6, new 480 x 640, pad (0, 80).
  const double gain = 1.6, pad_x = 0, pad_y = 80;
  const std::vector<std::vector<double>> orig{{10, 20, 110, 220, 0.9, 3}, {0, 0, 400, 300, 0.5, 1}};
  std::vector<std::vector<double>> boxed;
  for (const auto& r : orig)
    boxed.push_back({r[0] * gain + pad_x, r[1] * gain + pad_y, r[2] * gain + pad_x, r[3] * gain + pad_y, r[4], r[5]});
  const Tensor in = boxes(boxed, 6);
  const Tensor rp = tensor(std::vector<float>{1.6f, 0.0f, 80.0f});
  for (const Tensor& back : {scale_boxes(in, rp, {300, 400}), scale_boxes({640, 640}, in, {300, 400})}) {
    const auto r = rows_of(back);
    ASSERT_EQ(r.size(), 2u);
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 6; ++j) EXPECT_NEAR(r[i][j], orig[i][j], 1e-4) << i << "," << j;
  }
  // Boxes reaching into the padding are clipped to the image.
  const auto c = rows_of(scale_boxes(boxes({{-20, 40, 700, 600}}, 4), rp, {300, 400}));
  EXPECT_EQ(c[0][0], 0.0);
  EXPECT_EQ(c[0][1], 0.0);
  EXPECT_EQ(c[0][2], 400.0);
  EXPECT_EQ(c[0][3], 300.0);
  EXPECT_THROW(scale_boxes(zeros({2, 3}), rp, {300, 400}), ShapeError);
  EXPECT_THROW(scale_boxes(in, tensor(std::vector<float>{0.0f, 0.0f, 0.0f}), {300, 400}), ValueError);
}

TEST(YoloMetrics, PerfectPredictionsGiveOne) {
  DetectionMetrics m;
  m.update(boxes({{0, 0, 10, 10, 0.9, 0}, {20, 20, 40, 50, 0.8, 1}}, 6),
           boxes({{0, 0, 0, 10, 10}, {1, 20, 20, 40, 50}}, 5));
  m.update(boxes({{5, 5, 15, 25, 0.7, 1}}, 6), boxes({{1, 5, 5, 15, 25}}, 5));
  const DetectionResults r = m.compute();
  EXPECT_EQ(r.classes, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(r.n_instances, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r.n_images, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r.images, 2);
  EXPECT_DOUBLE_EQ(r.map50, 1.0);
  EXPECT_DOUBLE_EQ(r.map50_95, 1.0);
  EXPECT_DOUBLE_EQ(r.mp, 1.0);
  EXPECT_DOUBLE_EQ(r.mr, 1.0);
  EXPECT_NE(r.table({"a", "b"}).find("all"), std::string::npos);
}

TEST(YoloMetrics, FalsePositiveRankedAboveTruePositive) {
  // Two gts; ranked detections TP (0.9), FP (0.8), TP (0.7).
  DetectionMetrics m;
  m.update(boxes({{0, 0, 10, 10, 0.9, 0}, {50, 50, 60, 60, 0.8, 0}, {20, 0, 30, 10, 0.7, 0}}, 6),
           boxes({{0, 0, 0, 10, 10}, {0, 20, 0, 30, 10}}, 5));
  DetectionResults r = m.compute();
  const double expected = ap_101({1, 0, 1}, 2);
  EXPECT_NEAR(expected, (51 + 50 * 2.0 / 3.0) / 101, 1e-12);  // the definition worked by hand
  EXPECT_NEAR(r.map50, expected, 1e-12);
  EXPECT_NEAR(r.map50_95, expected, 1e-12);
  // The FP first: every recall level has interpolated precision 2/3.
  m.reset();
  m.update(boxes({{50, 50, 60, 60, 0.95, 0}, {0, 0, 10, 10, 0.9, 0}, {20, 0, 30, 10, 0.7, 0}}, 6),
           boxes({{0, 0, 0, 10, 10}, {0, 20, 0, 30, 10}}, 5));
  r = m.compute();
  EXPECT_NEAR(r.map50, ap_101({0, 1, 1}, 2), 1e-12);
  EXPECT_NEAR(r.map50, 2.0 / 3.0, 1e-12);
  EXPECT_EQ(r.images, 1);
}

TEST(YoloMetrics, IouThresholdsAndDuplicates) {
  // IoU 0.72: a TP at thresholds 0.50 .. 0.70 (5 of 10), a duplicate on the same gt is an FP.
  DetectionMetrics m;
  m.update(boxes({{0, 0, 100, 72, 0.9, 2}, {0, 0, 100, 72, 0.5, 2}}, 6), boxes({{2, 0, 0, 100, 100}}, 5));
  const DetectionResults r = m.compute();
  EXPECT_NEAR(r.ap[0][4], 1.0, 1e-12);
  EXPECT_NEAR(r.ap[0][5], 0.0, 1e-12);
  EXPECT_NEAR(r.map50_95, 0.5, 1e-12);
  EXPECT_NEAR(r.map50, ap_101({1, 0}, 1), 1e-12);
  EXPECT_NEAR(r.map50, 1.0, 1e-12);
  // P/R at the best-F1 confidence: above 0.5 only the TP remains (P = R = 1).
  EXPECT_DOUBLE_EQ(r.mp, 1.0);
  EXPECT_DOUBLE_EQ(r.mr, 1.0);
  EXPECT_GT(r.best_conf, 0.5);
  EXPECT_LE(r.best_conf, 0.9);
}

TEST(YoloMetrics, EqualIouTiesGoToTheLaterGt) {
  // det1 has IoU 0.818 with both gts and takes the later one (pycocotools' `>=` scan), leaving g0
  // (IoU 1) to det2; at IoU 0.70 det2 would miss g1 (IoU 0.667) had det1 taken g0.
  DetectionMetrics m;
  m.update(boxes({{1, 0, 11, 10, 0.9, 0}, {0, 0, 10, 10, 0.8, 0}}, 6), boxes({{0, 0, 0, 10, 10}, {0, 2, 0, 12, 10}}, 5));
  const DetectionResults r = m.compute();
  EXPECT_NEAR(r.ap[0][4], 1.0, 1e-12);  // with det1 -> g0 this would be ap_101({1, 0}, 2)
  EXPECT_NEAR(r.ap[0][7], ap_101({0, 1}, 2), 1e-12);  // IoU 0.85: det1 misses, det2 takes g0
}

TEST(YoloMetrics, MissedGtLowersRecallAndAp) {
  DetectionMetrics m;
  m.update(boxes({{0, 0, 10, 10, 0.9, 0}}, 6), boxes({{0, 0, 0, 10, 10}}, 5));
  m.update(zeros({0, 6}), boxes({{0, 30, 30, 40, 40}}, 5));
  const DetectionResults r = m.compute();
  EXPECT_NEAR(r.max_recall[0][0], 0.5, 1e-12);
  EXPECT_NEAR(r.map50, 51.0 / 101.0, 1e-12);
  EXPECT_NEAR(r.map50, ap_101({1}, 2), 1e-12);
  EXPECT_DOUBLE_EQ(r.mr, 0.5);
  EXPECT_DOUBLE_EQ(r.mp, 1.0);
}

TEST(YoloMetrics, ClassesWithoutGtExcludedWithoutDetectionsZero) {
  DetectionMetrics m;
  // Class 0 perfect; class 5 only a false positive (no gt): excluded from the mean.
  m.update(boxes({{0, 0, 10, 10, 0.9, 0}, {50, 50, 60, 60, 0.95, 5}}, 6), boxes({{0, 0, 0, 10, 10}}, 5));
  DetectionResults r = m.compute();
  EXPECT_EQ(r.classes, (std::vector<int64_t>{0}));
  EXPECT_DOUBLE_EQ(r.map50_95, 1.0);
  // Class 3 has a gt but no detection: AP 0 enters the mean.
  m.update(zeros({0, 6}), boxes({{3, 0, 0, 10, 10}}, 5));
  r = m.compute();
  EXPECT_EQ(r.classes, (std::vector<int64_t>{0, 3}));
  EXPECT_DOUBLE_EQ(r.map50, 0.5);
  EXPECT_DOUBLE_EQ(r.map50_95, 0.5);
  EXPECT_DOUBLE_EQ(r.fitness(), 0.5);
  // P and R of class 3 (no detection at all) are 0, as Ultralytics reports them; class 0's are 1.
  EXPECT_DOUBLE_EQ(r.precision[1], 0.0);
  EXPECT_DOUBLE_EQ(r.recall[1], 0.0);
  EXPECT_DOUBLE_EQ(r.precision[0], 1.0);
  EXPECT_DOUBLE_EQ(r.mp, 0.5);
  // Nothing accumulated: zeros and no classes.
  m.reset();
  r = m.compute();
  EXPECT_TRUE(r.classes.empty());
  EXPECT_EQ(r.map50_95, 0.0);
}

TEST(YoloMetrics, MaxDetsPerImageAndClassAndErrors) {
  // With max_dets = 1 only the best detection per (image, class) counts, as pycocotools' maxDets.
  DetectionMetrics all, one(1);
  const Tensor p = boxes({{50, 50, 60, 60, 0.9, 0}, {0, 0, 10, 10, 0.8, 0}}, 6);
  const Tensor g = boxes({{0, 0, 0, 10, 10}}, 5);
  all.update(p, g);
  one.update(p, g);
  EXPECT_NEAR(all.compute().map50, ap_101({0, 1}, 1), 1e-12);
  EXPECT_NEAR(one.compute().map50, 0.0, 1e-12);
  EXPECT_THROW(all.update(zeros({2, 5}), g), ShapeError);
  EXPECT_THROW(all.update(p, zeros({2, 6})), ShapeError);
  EXPECT_THROW(all.update(p, boxes({{-1, 0, 0, 1, 1}}, 5)), ValueError);
  EXPECT_THROW(DetectionMetrics(-1), ValueError);
}

}  // namespace
}  // namespace adept::testing
