// The detection confusion matrix on hand-made images (each count derived in the test from the
// matching rule of confusion_matrix.h), and the per-class curves DetectionMetrics returns for the
// plots (BoxPR / BoxP / BoxR curves), checked against the AP50 and P/R they must agree with.
#include <gtest/gtest.h>

#include <numeric>

#include "adept/adept.h"
#include "adept/models/yolo/confusion_matrix.h"
#include "adept/models/yolo/metrics.h"

namespace adept::testing {
namespace {

using namespace adept::models::yolo;

Tensor rows(const std::vector<std::vector<double>>& r, int64_t cols) {
  std::vector<double> flat;
  for (const auto& row : r) flat.insert(flat.end(), row.begin(), row.end());
  return from_blob_copy(flat.data(), {static_cast<int64_t>(r.size()), cols}, kFloat64).to(kFloat32);
}

int64_t total(const ConfusionMatrix& m) {
  int64_t s = 0;
  for (int64_t p = 0; p <= m.nc(); ++p)
    for (int64_t t = 0; t <= m.nc(); ++t) s += m.at(p, t);
  return s;
}

TEST(YoloConfusionMatrix, MatchesClassAgnosticallyAndCountsBackground) {
  ConfusionMatrix m(3);
  // gt 0 of class 0 is found as class 0; gt 1 of class 1 is found as class 2 (a confusion); gt 2 of
  // class 2 is missed; one detection of class 1 is on nothing; one of conf 0.2 (below 0.25) is dropped.
  const Tensor targets = rows({{0, 0, 0, 10, 10}, {1, 20, 20, 30, 30}, {2, 50, 50, 60, 60}}, 5);
  const Tensor preds = rows({{0, 0, 10, 10, 0.9, 0},
                             {21, 21, 30, 30, 0.8, 2},
                             {80, 80, 90, 90, 0.7, 1},
                             {50, 50, 60, 60, 0.2, 2}},
                            6);
  m.update(preds, targets);
  EXPECT_EQ(m.at(0, 0), 1);
  EXPECT_EQ(m.at(2, 1), 1);
  EXPECT_EQ(m.at(3, 2), 1);  // background row: the missed class-2 box
  EXPECT_EQ(m.at(1, 3), 1);  // background column: the class-1 detection on nothing
  EXPECT_EQ(total(m), 4);
  // Normalised per true-class column.
  const std::vector<double> n = m.normalized();
  EXPECT_NEAR(n[0 * 4 + 0], 1.0, 1e-6);
  EXPECT_NEAR(n[1 * 4 + 3], 1.0, 1e-6);
  EXPECT_EQ(n[0 * 4 + 1], 0.0);
}

TEST(YoloConfusionMatrix, EachBoxMatchedOnceInDescendingIou) {
  ConfusionMatrix m(2);
  // Two detections on one gt: the better overlap (class 1) takes it, the other is a false positive.
  const Tensor targets = rows({{0, 0, 0, 10, 10}}, 5);
  const Tensor preds = rows({{0, 0, 9, 9, 0.9, 0}, {0, 0, 10, 10, 0.5, 1}}, 6);
  m.update(preds, targets);
  EXPECT_EQ(m.at(1, 0), 1);
  EXPECT_EQ(m.at(0, 2), 1);
  EXPECT_EQ(total(m), 2);
  // IoU at or below 0.45 is no match: a missed gt and a false positive.
  ConfusionMatrix far(2);
  far.update(rows({{0, 0, 10, 4, 0.9, 0}}, 6), targets);  // IoU 0.4
  EXPECT_EQ(far.at(2, 0), 1);
  EXPECT_EQ(far.at(0, 2), 1);
}

TEST(YoloConfusionMatrix, EmptyImagesAndErrors) {
  ConfusionMatrix m(2);
  m.update(zeros({0, 6}), rows({{1, 0, 0, 5, 5}}, 5));
  m.update(rows({{0, 0, 5, 5, 0.9, 0}}, 6), zeros({0}));
  EXPECT_EQ(m.at(2, 1), 1);
  EXPECT_EQ(m.at(0, 2), 1);
  EXPECT_THROW(ConfusionMatrix(0), ValueError);
  EXPECT_THROW(ConfusionMatrix(2, 1.5), ValueError);
  EXPECT_THROW(m.update(zeros({1, 5}), zeros({0, 5})), ShapeError);
  EXPECT_THROW(m.update(rows({{0, 0, 5, 5, 0.9, 7}}, 6), zeros({0, 5})), ValueError);
  EXPECT_THROW(m.update(zeros({1, 6}, kInt64), zeros({0, 5})), DtypeError);
}

TEST(YoloMetricsCurves, AgreeWithApAndPrecisionRecall) {
  DetectionMetrics dm;
  // Class 0: two boxes, found at 0.9 and missed; a false positive at 0.6. Class 1: one box at 0.3.
  dm.update(rows({{0, 0, 10, 10, 0.9, 0}, {40, 40, 50, 50, 0.6, 0}, {20, 20, 30, 30, 0.3, 1}}, 6),
            rows({{0, 0, 0, 10, 10}, {0, 60, 60, 70, 70}, {1, 20, 20, 30, 30}}, 5));
  const DetectionResults r = dm.compute();
  ASSERT_EQ(r.pr_curve.size(), 2u);
  ASSERT_EQ(r.p_curve.size(), 2u);
  ASSERT_EQ(r.r_curve[0].size(), static_cast<size_t>(kConfPoints));
  for (size_t c = 0; c < 2; ++c) {
    // AP50 is the mean of the precision envelope at the 101 recall points.
    const double mean = std::accumulate(r.pr_curve[c].begin(), r.pr_curve[c].end(), 0.0) / kRecallPoints;
    EXPECT_NEAR(mean, r.ap[c][0], 1e-9) << "class " << c;
    // The envelope does not increase with recall.
    for (int k = 1; k < kRecallPoints; ++k) EXPECT_LE(r.pr_curve[c][k], r.pr_curve[c][k - 1] + 1e-12);
  }
  // Class 0 at score >= 0.5: 1 of 2 boxes found, 1 of 2 detections right; above 0.9 nothing counts.
  EXPECT_NEAR(r.r_curve[0][500], 0.5, 1e-6);
  EXPECT_NEAR(r.p_curve[0][500], 0.5, 1e-6);
  EXPECT_NEAR(r.r_curve[0][950], 0.0, 1e-6);
  // Class 1: recall 1 up to its detection's score 0.3, none above.
  EXPECT_NEAR(r.r_curve[1][200], 1.0, 1e-6);
  EXPECT_NEAR(r.r_curve[1][400], 0.0, 1e-6);
  // Recall never increases with the threshold.
  for (int j = 1; j < kConfPoints; ++j) EXPECT_LE(r.r_curve[0][j], r.r_curve[0][j - 1] + 1e-12);
}

}  // namespace
}  // namespace adept::testing
