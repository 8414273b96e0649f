// nn::functional normalization, losses, linear, dropout and piecewise activations: values against
// formulas written independently with plain ops or loops, fused batch norm against the composed
// reference, finite-difference gradients in float64 (double backward where it matters), errors.
#include <gtest/gtest.h>

#include <cmath>

#include "gradcheck.h"
#include "ops/normalization_internal.h"
#include "test_util.h"

using namespace adept;
using namespace adept::testing;
namespace F = adept::nn::functional;

namespace {

using In = std::vector<Tensor>;

uint64_t g_seed = 500;
Tensor R(const Shape& s, double lo = -2, double hi = 2, Dtype dt = kFloat64) {
  return uniform(s, lo, hi, dt, g_seed++).requires_grad_();
}
Tensor C(const Shape& s, double lo = -2, double hi = 2, Dtype dt = kFloat64) { return uniform(s, lo, hi, dt, g_seed++); }

// Gradients of sum(f(inputs) * v) with respect to every input (undefined where none flows).
std::vector<Tensor> grads_of(const Tensor& out, const std::vector<Tensor>& inputs, const Tensor& v) {
  return autograd::grad({out}, inputs, {v}, std::nullopt, false, true);
}

}  // namespace

// ---------------------------------------------------------------- batch norm

TEST(BatchNormTraining, FusedMatchesComposedReferenceForwardAndBackward) {
  for (Dtype dt : {kFloat64, kFloat32}) {
    for (const Shape& shape : {Shape{8, 3}, Shape{4, 5, 7}, Shape{3, 4, 5, 6}, Shape{2, 3, 2, 2, 3}}) {
      const int64_t Cn = shape[1];
      Tensor x = R(shape, -3, 5, dt), w = R({Cn}, 0.5, 1.5, dt), b = R({Cn}, -1, 1, dt);
      Tensor rm = zeros({Cn}, TensorOptions(dt)), rv = ones({Cn}, TensorOptions(dt));
      Tensor y = F::batch_norm(x, rm, rv, w, b, true);
      Tensor mref, vref;
      Tensor yref = batch_norm_composed(x, w, b, 1e-5, mref, vref);
      const double tol = dt == kFloat64 ? 1e-10 : 2e-5;
      ASSERT_TRUE(close(y, yref, tol, tol)) << dtype_name(dt) << " " << shape_str(shape);
      Tensor v = C(shape, 0.5, 1.5, dt);
      auto g = grads_of(y, {x, w, b}, v);
      auto gref = grads_of(yref, {x, w, b}, v);
      for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(close(g[i], gref[i], tol * 10, tol * 10)) << "grad " << i;
    }
  }
}

TEST(BatchNormTraining, GradcheckThroughBatchStatistics) {
  for (bool affine : {true, false}) {
    In in{R({4, 3, 5}), affine ? R({3}, 0.5, 1.5) : Tensor(), affine ? R({3}) : Tensor()};
    EXPECT_TRUE(gradcheck([](const In& a) { return F::batch_norm(a[0], {}, {}, a[1], a[2], true); }, in));
  }
  // Non-contiguous input, (N, C) input.
  In nc{R({5, 4}).detach().t().requires_grad_(), R({5}), R({5})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::batch_norm(a[0], {}, {}, a[1], a[2], true); }, nc));
}

TEST(BatchNormTraining, DoubleBackwardMatchesFiniteDifferences) {
  // The create_graph path of the fused node: the gradient itself is differentiated.
  Tensor v = C({3, 2, 4}, 0.5, 1.5);
  In in{R({3, 2, 4}), R({2}, 0.5, 1.5), R({2})};
  auto first_grad = [v](const In& args) {
    // gradcheck's numeric pass calls this under no_grad with plain copies: differentiate leaves anyway.
    EnableGradGuard eg;
    In a = args;
    for (Tensor& t : a) {
      if (!t.requires_grad()) t = t.detach().requires_grad_();
    }
    Tensor y = F::batch_norm(a[0], {}, {}, a[1], a[2], true);
    auto g = autograd::grad({y * y}, {a[0], a[1]}, {v}, std::nullopt, true);
    return g[0].sum({0}) + g[1].sum() * 0.5;  // couples both first-order gradients
  };
  EXPECT_TRUE(gradcheck(first_grad, in));
}

TEST(BatchNormTraining, RunningStatsUseMomentumAndUnbiasedVariance) {
  Tensor x = C({6, 3, 4}, -2, 6);
  Tensor rm = C({3}), rv = C({3}, 0.5, 2);
  Tensor rm0 = rm.clone(), rv0 = rv.clone();
  F::batch_norm(x, rm, rv, {}, {}, true, 0.3);
  Tensor bm = mean(x, {0, 2}), bv = var(x, {0, 2}, 1);
  EXPECT_TRUE(close(rm, rm0 * 0.7 + bm * 0.3, 1e-12, 1e-12));
  EXPECT_TRUE(close(rv, rv0 * 0.7 + bv * 0.3, 1e-12, 1e-12));
  // Several calls keep folding in.
  Tensor x2 = C({6, 3, 4});
  Tensor rm1 = rm.clone(), rv1 = rv.clone();
  F::batch_norm(x2, rm, rv, {}, {}, true, 0.3);
  EXPECT_TRUE(close(rm, rm1 * 0.7 + mean(x2, {0, 2}) * 0.3, 1e-12, 1e-12));
  EXPECT_TRUE(close(rv, rv1 * 0.7 + var(x2, {0, 2}, 1) * 0.3, 1e-12, 1e-12));
}

TEST(BatchNormTraining, CumulativeAverageReadsNumBatchesTracked) {
  Tensor x = C({5, 2, 3});
  Tensor rm = C({2}), rv = C({2}, 0.5, 2), nbt = full({}, Scalar(int64_t{4}), TensorOptions(kInt64));
  Tensor rm0 = rm.clone(), rv0 = rv.clone();
  F::batch_norm(x, rm, rv, {}, {}, true, std::nullopt, 1e-5, nbt);
  EXPECT_TRUE(close(rm, rm0 * 0.75 + mean(x, {0, 2}) * 0.25, 1e-12, 1e-12));
  EXPECT_TRUE(close(rv, rv0 * 0.75 + var(x, {0, 2}, 1) * 0.25, 1e-12, 1e-12));
  EXPECT_THROW(F::batch_norm(x, rm, rv, {}, {}, true, std::nullopt), ValueError);
}

TEST(BatchNormTraining, StatsOfLargeMeanDataStayAccurate) {
  // float32 values around 1e4 with unit spread: the shifted accumulation keeps the variance.
  Tensor base = C({64, 2, 16}, -1, 1);
  Tensor x = (base + 1e4).to(kFloat32);
  Tensor y = F::batch_norm(x, {}, {}, {}, {}, true);
  Tensor yd = F::batch_norm(x.to(kFloat64), {}, {}, {}, {}, true);
  EXPECT_TRUE(close(y.to(kFloat64), yd, 1e-3, 1e-3));
}

TEST(BatchNormEval, NormalisesWithRunningStatsAndGradchecks) {
  Tensor x = C({4, 3, 2, 2}), rm = C({3}), rv = C({3}, 0.5, 2), w = C({3}), b = C({3});
  Tensor y = F::batch_norm(x, rm, rv, w, b, false, 0.1, 1e-3);
  Tensor cs_rm = rm.view({1, 3, 1, 1}), cs_rv = rv.view({1, 3, 1, 1});
  Tensor expect = (x - cs_rm) / sqrt(cs_rv + 1e-3) * w.view({1, 3, 1, 1}) + b.view({1, 3, 1, 1});
  EXPECT_TRUE(close(y, expect, 1e-12, 1e-12));
  Tensor rm0 = rm.clone();
  F::batch_norm(x, rm, rv, w, b, false);
  EXPECT_TRUE(same(rm, rm0));  // eval leaves the running stats alone
  In in{R({3, 2, 4}), C({2}), C({2}, 0.5, 2), R({2}), R({2})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::batch_norm(a[0], a[1], a[2], a[3], a[4], false); }, in));
}

TEST(BatchNormErrors, TypedErrorsLikeTorch) {
  Tensor rm = zeros({3}), rv = ones({3});
  EXPECT_THROW(F::batch_norm(randn({1, 3}), rm, rv, {}, {}, true), ValueError);
  EXPECT_THROW(F::batch_norm(randn({1, 3, 1}), rm, rv, {}, {}, true), ValueError);
  EXPECT_NO_THROW(F::batch_norm(randn({1, 3}), rm, rv, {}, {}, false));
  EXPECT_THROW(F::batch_norm(randn({4, 3}), zeros({4}), rv), ShapeError);
  EXPECT_THROW(F::batch_norm(randn({4, 3}), rm, rv, ones({4})), ShapeError);
  EXPECT_THROW(F::batch_norm(randn({3}), rm, rv), ShapeError);
  EXPECT_THROW(F::batch_norm(randn({4, 3}), {}, {}, {}, {}, false), ValueError);
  EXPECT_THROW(F::batch_norm(ones({4, 3}, TensorOptions(kInt64)), rm, rv), DtypeError);
}

TEST(BatchNormTraining, EmptyBatchKeepsRunningStats) {
  Tensor x = R({0, 3, 2}), w = R({3}), rm = C({3}), rv = C({3}, 0.5, 2);
  Tensor rm0 = rm.clone();
  Tensor y = F::batch_norm(x, rm, rv, w, {}, true);
  EXPECT_EQ(y.sizes(), (Shape{0, 3, 2}));
  EXPECT_TRUE(same(rm, rm0));
  y.sum().backward();
  EXPECT_TRUE(same(w.grad(), zeros({3}, TensorOptions(kFloat64))));
}

// ---------------------------------------------------------------- layer / group norm

TEST(LayerNorm, NormalisesTrailingDimsAndGradchecks) {
  Tensor x = C({2, 3, 4, 5});
  Tensor y = F::layer_norm(x, {4, 5}, {}, {}, 0);
  EXPECT_TRUE(close(mean(y, {2, 3}), zeros({2, 3}, TensorOptions(kFloat64)), 0, 1e-12));
  EXPECT_TRUE(close(var(y, {2, 3}, 0), ones({2, 3}, TensorOptions(kFloat64)), 1e-10, 1e-10));
  In in{R({3, 4, 5}), R({4, 5}), R({4, 5})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::layer_norm(a[0], {4, 5}, a[1], a[2]); }, in));
  In nc{R({6, 4}).detach().t().requires_grad_(), R({6})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::layer_norm(a[0], {6}, a[1]); }, nc));
}

TEST(LayerNorm, ShapeErrors) {
  EXPECT_THROW(F::layer_norm(randn({2, 3}), {4}), ShapeError);
  EXPECT_THROW(F::layer_norm(randn({2, 3}), {2, 3, 1}), ShapeError);
  EXPECT_THROW(F::layer_norm(randn({2, 3}), {3}, ones({4})), ShapeError);
  EXPECT_THROW(F::layer_norm(randn({2, 3}), {3}, {}, ones({2, 3})), ShapeError);
  EXPECT_EQ(F::layer_norm(randn({0, 3}), {3}).sizes(), (Shape{0, 3}));
}

TEST(GroupNorm, OneGroupEqualsLayerNormOverChannelsAndSpace) {
  Tensor x = C({2, 4, 3, 3}), w = C({4}), b = C({4});
  Tensor y = F::group_norm(x, 1, w, b, 1e-5);
  Tensor ln = F::layer_norm(x, {4, 3, 3}, {}, {}, 1e-5) * w.view({1, 4, 1, 1}) + b.view({1, 4, 1, 1});
  EXPECT_TRUE(close(y, ln, 1e-12, 1e-12));
  // num_groups = C: each channel of each sample on its own (instance norm).
  Tensor yi = F::group_norm(x, 4, {}, {}, 0);
  EXPECT_TRUE(close(mean(yi, {2, 3}), zeros({2, 4}, TensorOptions(kFloat64)), 0, 1e-12));
}

TEST(GroupNorm, GradcheckAndErrors) {
  In in{R({2, 6, 5}), R({6}), R({6})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::group_norm(a[0], 3, a[1], a[2]); }, in));
  EXPECT_THROW(F::group_norm(randn({2, 3, 4}), 2), ValueError);
  EXPECT_THROW(F::group_norm(randn({2, 4, 4}), 0), ValueError);
  EXPECT_THROW(F::group_norm(randn({3}), 1), IndexError);
  EXPECT_THROW(F::group_norm(randn({2, 4, 4}), 2, ones({3})), ShapeError);
  EXPECT_EQ(F::group_norm(randn({0, 4, 4}), 2).sizes(), (Shape{0, 4, 4}));
}

// ---------------------------------------------------------------- losses

namespace {
// Reference cross entropy with index targets by loops (N, C) in double.
double ce_reference(const Tensor& x, const std::vector<int64_t>& t, const std::vector<double>& w, int64_t ignore,
                    double ls, const std::string& red) {
  const int64_t N = x.size(0), Cn = x.size(1);
  auto xv = values(x);
  double num = 0, den = 0, smooth = 0;
  for (int64_t i = 0; i < N; ++i) {
    if (t[i] == ignore) continue;
    double mx = -1e300, s = 0;
    for (int64_t c = 0; c < Cn; ++c) mx = std::max(mx, xv[i * Cn + c]);
    for (int64_t c = 0; c < Cn; ++c) s += std::exp(xv[i * Cn + c] - mx);
    const double lse = mx + std::log(s);
    const double wt = w.empty() ? 1.0 : w[t[i]];
    num += -wt * (xv[i * Cn + t[i]] - lse);
    den += wt;
    for (int64_t c = 0; c < Cn; ++c) smooth += -(w.empty() ? 1.0 : w[c]) * (xv[i * Cn + c] - lse);
  }
  if (red == "sum") return (1 - ls) * num + ls / Cn * smooth;
  return ((1 - ls) * num + ls / Cn * smooth) / den;
}
}  // namespace

TEST(LossCrossEntropy, IndexTargetsWithWeightsIgnoreAndSmoothingMatchLoops) {
  Tensor x = C({6, 4}, -3, 3);
  std::vector<int64_t> tv{0, 3, -100, 2, 1, 3};
  Tensor t = tensor(tv);
  std::vector<double> wv{0.5, 1.0, 2.0, 1.5};
  Tensor w = tensor(wv, TensorOptions(kFloat64));
  for (double ls : {0.0, 0.2}) {
    for (const char* red : {"mean", "sum"}) {
      EXPECT_NEAR(F::cross_entropy(x, t, w, -100, red, ls).item<double>(), ce_reference(x, tv, wv, -100, ls, red), 1e-12)
          << red << " ls=" << ls;
      EXPECT_NEAR(F::cross_entropy(x, t, {}, -100, red, ls).item<double>(), ce_reference(x, tv, {}, -100, ls, red), 1e-12);
    }
  }
  // ignore_index other than -100.
  std::vector<int64_t> tv2{0, 3, 1, 2, 1, 3};
  EXPECT_NEAR(F::cross_entropy(x, tensor(tv2), {}, 1).item<double>(), ce_reference(x, tv2, {}, 1, 0, "mean"), 1e-12);
  // "none": per-sample, 0 at ignored.
  Tensor none = F::cross_entropy(x, t, w, -100, "none");
  EXPECT_EQ(none.sizes(), (Shape{6}));
  EXPECT_EQ(none.select(0, 2).item<double>(), 0.0);
  EXPECT_TRUE(std::isnan(F::cross_entropy(x, full({6}, Scalar(int64_t{-100}), TensorOptions(kInt64))).item<double>()));
}

TEST(LossCrossEntropy, SpatialAndProbabilityTargets) {
  // (N, C, d) with index targets equals the (N*d, C) form.
  Tensor x = C({2, 3, 4});
  Tensor t = tensor(std::vector<int64_t>{0, 1, 2, 1, 2, 2, 0, 1}).view({2, 4});
  Tensor flat = x.permute({0, 2, 1}).reshape({8, 3});
  EXPECT_NEAR(F::cross_entropy(x, t).item<double>(), F::cross_entropy(flat, t.reshape({8})).item<double>(), 1e-12);
  // Probability targets: -sum p log softmax.
  Tensor p = softmax(C({2, 3, 4}), 1);
  Tensor expect = -(p * log_softmax(x, 1)).sum({1});
  EXPECT_TRUE(close(F::cross_entropy(x, p, {}, -100, "none"), expect, 1e-12, 1e-12));
  EXPECT_NEAR(F::cross_entropy(x, p).item<double>(), expect.mean().item<double>(), 1e-12);
  // One-hot probabilities equal index targets.
  Tensor oh = one_hot(t, 3).permute({0, 2, 1}).to(kFloat64);
  EXPECT_NEAR(F::cross_entropy(x, oh).item<double>(), F::cross_entropy(x, t).item<double>(), 1e-12);
  // (C) input with a 0-d target.
  Tensor x1 = C({5});
  EXPECT_NEAR(F::cross_entropy(x1, tensor(std::vector<int64_t>{3}).reshape({})).item<double>(),
              -log_softmax(x1, 0).select(0, 3).item<double>(), 1e-12);
}

TEST(LossCrossEntropy, Gradcheck) {
  Tensor t = tensor(std::vector<int64_t>{2, 0, -100, 1});
  Tensor w = C({3}, 0.5, 2);
  for (double ls : {0.0, 0.3}) {
    for (const char* red : {"mean", "sum", "none"}) {
      EXPECT_TRUE(gradcheck([&](const In& a) { return F::cross_entropy(a[0], t, w, -100, red, ls); }, {R({4, 3})}))
          << red << ls;
    }
  }
  In prob{R({2, 3, 2}), softmax(C({2, 3, 2}), 1).requires_grad_()};
  EXPECT_TRUE(gradcheck([&](const In& a) { return F::cross_entropy(a[0], a[1], w, -100, "mean", 0.1); }, prob));
}

TEST(LossNll, ValuesGradsAndErrors) {
  Tensor lp = log_softmax(C({4, 3}), 1);
  Tensor t = tensor(std::vector<int64_t>{2, 0, 1, 1});
  Tensor w = C({3}, 0.5, 2);
  Tensor picked = gather(lp, 1, t.unsqueeze(1)).squeeze(1), wt = index_select(w, 0, t);
  EXPECT_NEAR(F::nll_loss(lp, t, w).item<double>(), (-(picked * wt).sum() / wt.sum()).item<double>(), 1e-12);
  EXPECT_TRUE(gradcheck([&](const In& a) { return F::nll_loss(a[0], t, w, -100, "sum"); }, {R({4, 3})}));
  EXPECT_THROW(F::nll_loss(lp, tensor(std::vector<int64_t>{3, 0, 1, 1})), IndexError);
  EXPECT_THROW(F::nll_loss(lp, tensor(std::vector<int64_t>{-1, 0, 1, 1})), IndexError);
  EXPECT_THROW(F::nll_loss(lp, t.to(kInt32)), DtypeError);
  EXPECT_THROW(F::nll_loss(lp, tensor(std::vector<int64_t>{1, 0, 1})), ValueError);
  EXPECT_THROW(F::nll_loss(lp, t, ones({4})), ShapeError);
  EXPECT_THROW(F::nll_loss(lp, t, {}, -100, "avg"), ValueError);
  EXPECT_THROW(F::nll_loss(C({2, 3, 4}), zeros({2, 5}, TensorOptions(kInt64))), ShapeError);
  EXPECT_THROW(F::nll_loss(C({}), zeros({}, TensorOptions(kInt64))), ValueError);
  EXPECT_THROW(F::cross_entropy(lp, t, {}, -100, "mean", 1.5), ValueError);
  EXPECT_THROW(F::cross_entropy(lp, C({4, 4})), ShapeError);
}

TEST(LossBinaryCrossEntropy, WithLogitsIsStableForHugeLogits) {
  Tensor x = T({1e4, -1e4, 1e4, -1e4, 100, -100}), t = T({1, 0, 0, 1, 1, 0});
  Tensor l = F::binary_cross_entropy_with_logits(x, t, {}, "none");
  EXPECT_TRUE(close(l, T({0, 0, 1e4, 1e4, 0, 0}), 1e-6, 1e-6));
  Tensor xg = x.clone().requires_grad_();
  F::binary_cross_entropy_with_logits(xg, t, {}, "sum").backward();
  EXPECT_TRUE(close(xg.grad(), T({0, 0, 1, -1, 0, 0}), 1e-6, 1e-6));  // sigmoid(x) - t
}

TEST(LossBinaryCrossEntropy, WithLogitsWeightsAndPosWeightMatchFormula) {
  Tensor x = C({3, 4}, -4, 4), t = C({3, 4}, 0, 1), w = C({4}, 0.5, 2), pw = C({4}, 0.5, 3);
  Tensor s = sigmoid(x);
  Tensor expect = -(w * (pw * t * log(s) + (1 - t) * log(1 - s)));
  EXPECT_TRUE(close(F::binary_cross_entropy_with_logits(x, t, w, "none", pw), expect, 1e-10, 1e-10));
  In in{R({3, 4}), C({3, 4}, 0, 1).requires_grad_(), R({4}, 0.5, 2), R({4}, 0.5, 3)};
  for (const char* red : {"mean", "sum", "none"}) {
    EXPECT_TRUE(gradcheck([&](const In& a) { return F::binary_cross_entropy_with_logits(a[0], a[1], a[2], red, a[3]); },
                          in)) << red;
  }
  EXPECT_THROW(F::binary_cross_entropy_with_logits(x, C({4})), ValueError);
}

TEST(LossBinaryCrossEntropy, ProbabilitiesClampLogsAndGradcheck) {
  Tensor x = T({0.0, 1.0, 0.5}), t = T({1, 0, 1});
  EXPECT_TRUE(close(F::binary_cross_entropy(x, t, {}, "none"), T({100, 100, -std::log(0.5f)}), 1e-6, 1e-6));
  Tensor xg = x.clone().requires_grad_();
  F::binary_cross_entropy(xg, t, {}, "sum").backward();
  EXPECT_TRUE(close(xg.grad(), T({-1e12, 1e12, -2}), 1e-5, 1e-5));  // (x - t) / max(x (1 - x), 1e-12)
  In in{R({2, 3}, 0.05, 0.95), R({2, 3}, 0, 1), R({3}, 0.5, 2)};
  for (const char* red : {"mean", "sum", "none"}) {
    EXPECT_TRUE(gradcheck([&](const In& a) { return F::binary_cross_entropy(a[0], a[1], a[2], red); }, in)) << red;
  }
  EXPECT_THROW(F::binary_cross_entropy(T({1.5}), T({1})), ValueError);
  EXPECT_THROW(F::binary_cross_entropy(T({0.5, 0.5}), T({1})), ValueError);
  EXPECT_THROW(F::binary_cross_entropy(T({0.5, 0.5}), T({1, 0}), ones({3})), ShapeError);
}

TEST(LossRegression, ElementwiseLossesMatchFormulasAndBroadcast) {
  Tensor x = C({3, 4}, -3, 3), y = C({4}, -3, 3);
  Tensor d = x - y;
  EXPECT_TRUE(close(F::mse_loss(x, y, "none"), d * d, 1e-12, 0));
  EXPECT_NEAR(F::l1_loss(x, y).item<double>(), abs(d).mean().item<double>(), 1e-12);
  Tensor ad = abs(d);
  Tensor sl1 = where(lt(ad, 0.7), d * d * 0.5 / 0.7, ad - 0.35);
  EXPECT_TRUE(close(F::smooth_l1_loss(x, y, "none", 0.7), sl1, 1e-12, 1e-12));
  EXPECT_TRUE(close(F::smooth_l1_loss(x, y, "none", 0.0), ad, 1e-12, 1e-12));
  Tensor hub = where(lt(ad, 0.7), d * d * 0.5, (ad - 0.35) * 0.7);
  EXPECT_TRUE(close(F::huber_loss(x, y, "none", 0.7), hub, 1e-12, 1e-12));
  EXPECT_NEAR(F::huber_loss(x, y, "sum", 0.7).item<double>(), hub.sum().item<double>(), 1e-12);
  EXPECT_THROW(F::mse_loss(x, C({5})), ShapeError);
  EXPECT_THROW(F::smooth_l1_loss(x, y, "mean", -1), ValueError);
  EXPECT_THROW(F::huber_loss(x, y, "mean", 0), ValueError);
  EXPECT_THROW(F::l1_loss(x, y, "avg"), ValueError);
  EXPECT_TRUE(std::isnan(F::mse_loss(C({0, 3}), C({0, 3})).item<double>()));
  EXPECT_EQ(F::mse_loss(C({0, 3}), C({0, 3}), "sum").item<double>(), 0.0);
}

TEST(LossRegression, Gradcheck) {
  In in{R({3, 4}), R({4})};
  for (const char* red : {"mean", "sum", "none"}) {
    EXPECT_TRUE(gradcheck([&](const In& a) { return F::mse_loss(a[0], a[1], red); }, in));
    EXPECT_TRUE(gradcheck([&](const In& a) { return F::l1_loss(a[0], a[1], red); }, in));
    EXPECT_TRUE(gradcheck([&](const In& a) { return F::smooth_l1_loss(a[0], a[1], red, 0.8); }, in));
    EXPECT_TRUE(gradcheck([&](const In& a) { return F::huber_loss(a[0], a[1], red, 0.8); }, in));
  }
}

// ---------------------------------------------------------------- linear, dropout, activations

TEST(Linear, MatchesMatmulPlusBiasForAnyLeadingDims) {
  Tensor w = C({5, 3}), b = C({5});
  for (const Shape& s : {Shape{3}, Shape{4, 3}, Shape{2, 4, 3}, Shape{0, 3}}) {
    Tensor x = C(s);
    EXPECT_TRUE(close(F::linear(x, w, b), matmul(x, w.t()) + b, 1e-12, 1e-12)) << shape_str(s);
    EXPECT_TRUE(close(F::linear(x, w), matmul(x, w.t()), 1e-12, 1e-12));
  }
  In in{R({2, 4, 3}), R({5, 3}), R({5})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::linear(a[0], a[1], a[2]); }, in));
  In in2{R({4, 3}), R({5, 3}), R({5})};
  EXPECT_TRUE(gradcheck([](const In& a) { return F::linear(a[0], a[1], a[2]); }, in2));
  EXPECT_THROW(F::linear(C({2, 3}), C({4, 5})), ShapeError);
  EXPECT_THROW(F::linear(C({2, 3}), C({4, 3}), C({5})), ShapeError);
}

TEST(Dropout, ZeroesAboutPAndScalesTheRest) {
  manual_seed(3);
  Tensor x = ones({200000});
  Tensor y = F::dropout(x, 0.3);
  const double zero_frac = eq(y, 0).to(kFloat64).mean().item<double>();
  EXPECT_NEAR(zero_frac, 0.3, 0.005);
  Tensor kept = masked_select(y, ne(y, 0));
  EXPECT_TRUE(close(kept, full(kept.sizes(), 1 / 0.7f), 1e-6, 0));
}

TEST(Dropout, ReproducibleUnderManualSeedAndGradientUsesTheMask) {
  Tensor x = C({50, 40}).requires_grad_();
  manual_seed(11);
  Tensor y1 = F::dropout(x, 0.5);
  manual_seed(11);
  Tensor y2 = F::dropout(x, 0.5);
  EXPECT_TRUE(same(y1, y2));
  Tensor y3 = F::dropout(x, 0.5);
  EXPECT_FALSE(equal(y1, y3));
  y1.sum().backward();
  Tensor mask = ne(y1, 0).to(kFloat64) * 2.0;
  EXPECT_TRUE(close(x.grad(), mask, 1e-12, 0));
}

TEST(Dropout, IdentityCasesZeroAndErrors) {
  Tensor x = C({3, 4});
  EXPECT_TRUE(F::dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(F::dropout(x, 0.0).is_same(x));
  EXPECT_TRUE(same(F::dropout(x, 1.0), zeros({3, 4}, TensorOptions(kFloat64))));
  EXPECT_TRUE(std::isnan(F::dropout(T({NAN}), 1.0).item<double>()));
  EXPECT_THROW(F::dropout(x, 1.5), ValueError);
  EXPECT_THROW(F::dropout(x, -0.1), ValueError);
}

TEST(Activation, PiecewiseValuesMatchDefinitions) {
  Tensor x = C({100}, -8, 8);
  EXPECT_TRUE(close(F::relu6(x), clamp(x, Scalar(0), Scalar(6)), 0, 0));
  EXPECT_TRUE(close(F::hardtanh(x, -2, 3), clamp(x, Scalar(-2), Scalar(3)), 0, 0));
  EXPECT_TRUE(close(F::hardsigmoid(x), clamp(x / 6 + 0.5, Scalar(0), Scalar(1)), 1e-12, 1e-15));
  EXPECT_TRUE(close(F::hardswish(x), x * clamp(x / 6 + 0.5, Scalar(0), Scalar(1)), 1e-12, 1e-15));
  EXPECT_TRUE(close(F::elu(x, 0.7), where(gt(x, 0), x, (exp(x) - 1) * 0.7), 1e-12, 1e-15));
  EXPECT_TRUE(close(F::mish(x), x * tanh(log1p(exp(x))), 1e-10, 1e-12));
  EXPECT_THROW(F::hardswish(ones({2}, TensorOptions(kInt64))), DtypeError);
  Tensor xi = tensor(std::vector<int64_t>{-2, 3, 9});
  EXPECT_TRUE(same(F::relu6(xi), tensor(std::vector<int64_t>{0, 3, 6})));
  EXPECT_THROW(F::hardtanh(x, 1, -1), ValueError);
}

TEST(Activation, GradcheckAndTorchKinkGradients) {
  auto ok = [](Tensor (*f)(const Tensor&)) { return gradcheck([f](const In& a) { return f(a[0]); }, {R({40}, -8, 8)}); };
  EXPECT_TRUE(ok(F::relu6));
  EXPECT_TRUE(ok(F::hardsigmoid));
  EXPECT_TRUE(ok(F::hardswish));
  EXPECT_TRUE(ok(F::mish));
  EXPECT_TRUE(gradcheck([](const In& a) { return F::elu(a[0], 1.3); }, {R({40}, -4, 4)}));
  EXPECT_TRUE(gradcheck([](const In& a) { return F::hardtanh(a[0], -0.5, 2); }, {R({40}, -4, 4)}));
  // At the kinks: PyTorch's hardtanh/relu6/hardsigmoid gradients are 0 on the boundary, hardswish's
  // follows the middle piece on [-3, 3].
  Tensor k = T({-3, 3, 0, 6}, kFloat64).requires_grad_();
  auto g = [&](const Tensor& y) { return autograd::grad({y.sum()}, {k})[0]; };
  EXPECT_TRUE(close(g(F::relu6(k)), T({0, 1, 0, 0}, kFloat64), 0, 0));
  EXPECT_TRUE(close(g(F::hardsigmoid(k)), T({0, 0, 1.0 / 6, 0}, kFloat64), 1e-7, 0));  // torch: float 1/6
  EXPECT_TRUE(close(g(F::hardswish(k)), T({-0.5, 1.5, 0.5, 1}, kFloat64), 1e-15, 0));
  EXPECT_TRUE(close(g(F::elu(k, 2)), T({2 * std::exp(-3.0), 1, 2, 1}, kFloat64), 1e-15, 0));
  // Large inputs: elu's unused branch never turns the gradient into NaN.
  Tensor big = T({800.0}, kFloat64).requires_grad_();
  EXPECT_EQ(autograd::grad({F::elu(big).sum()}, {big})[0].item<double>(), 1.0);
}
