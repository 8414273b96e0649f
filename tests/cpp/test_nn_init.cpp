// nn::init: fan/gain computation, fills by their bounds and moments, errors and reproducibility.
#include <cmath>

#include "test_util.h"

namespace adept::testing {
namespace {

namespace init = adept::nn::init;

std::pair<double, double> mean_std(const Tensor& t) {
  const auto v = values(t);
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) s += (x - m) * (x - m);
  return {m, std::sqrt(s / static_cast<double>(v.size()))};
}

double max_abs(const Tensor& t) {
  double r = 0;
  for (double x : values(t)) r = std::max(r, std::abs(x));
  return r;
}

TEST(NnInit, FanInAndFanOut) {
  EXPECT_EQ(init::calculate_fan_in_and_fan_out(empty({3, 4})), std::make_pair(int64_t{4}, int64_t{3}));
  EXPECT_EQ(init::calculate_fan_in_and_fan_out(empty({16, 3, 3, 5})), std::make_pair(int64_t{45}, int64_t{240}));
  EXPECT_EQ(init::calculate_fan_in_and_fan_out(empty({8, 4, 5})), std::make_pair(int64_t{20}, int64_t{40}));
  EXPECT_THROW(init::calculate_fan_in_and_fan_out(empty({5})), ValueError);
  EXPECT_THROW(init::calculate_fan_in_and_fan_out(empty({})), ValueError);
}

TEST(NnInit, Gains) {
  EXPECT_EQ(init::calculate_gain("conv2d"), 1.0);
  EXPECT_EQ(init::calculate_gain("sigmoid"), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain("tanh"), 5.0 / 3);
  EXPECT_DOUBLE_EQ(init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu"), std::sqrt(2.0 / (1 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu", 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_DOUBLE_EQ(init::calculate_gain("selu"), 0.75);
  EXPECT_THROW(init::calculate_gain("swish"), ValueError);
}

TEST(NnInit, XavierAndKaimingBoundsAndStd) {
  manual_seed(1);
  Tensor w = empty({200, 300});
  init::xavier_uniform_(w, 0.5);
  const double xstd = 0.5 * std::sqrt(2.0 / 500);
  EXPECT_LE(max_abs(w), std::sqrt(3.0) * xstd * (1 + 1e-6));
  EXPECT_NEAR(mean_std(w).second, xstd, 0.02 * xstd);

  Tensor c = empty({64, 32, 3, 3});
  init::kaiming_normal_(c, 0, "fan_out", "relu");
  const double kstd = std::sqrt(2.0) / std::sqrt(64.0 * 9);
  EXPECT_NEAR(mean_std(c).second, kstd, 0.02 * kstd);
  EXPECT_NEAR(mean_std(c).first, 0.0, 0.02 * kstd);

  init::kaiming_uniform_(c, std::sqrt(5.0));  // nn.Linear/Conv2d default: bound 1/sqrt(fan_in)
  EXPECT_LE(max_abs(c), 1 / std::sqrt(32.0 * 9) * (1 + 1e-6));
  EXPECT_GT(max_abs(c), 0.99 / std::sqrt(32.0 * 9));
  EXPECT_THROW(init::kaiming_uniform_(c, 0, "fan_avg"), ValueError);

  Tensor zero = empty({0, 3});
  EXPECT_NO_THROW(init::kaiming_uniform_(zero));
}

TEST(NnInit, TruncNormalStaysInRange) {
  manual_seed(2);
  Tensor t = empty({100, 100}, TensorOptions(kFloat64));
  init::trunc_normal_(t, 0.0, 1.0, -0.5, 1.5);
  const auto v = values(t);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -0.5);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 1.5);
  EXPECT_THROW(init::trunc_normal_(t, 0.0, 1.0, 30.0, 40.0), ValueError);
  EXPECT_THROW(init::trunc_normal_(t, 0.0, -1.0), ValueError);
}

TEST(NnInit, InPlaceOnParametersUnderNoGradAndReproducible) {
  Tensor w = zeros({8, 6}).requires_grad_();
  manual_seed(7);
  Tensor& r = init::xavier_normal_(w);
  EXPECT_TRUE(r.is_same(w));
  EXPECT_TRUE(w.is_leaf());
  EXPECT_FALSE(w.grad_fn());
  const auto first = values(w);
  manual_seed(7);
  init::xavier_normal_(w);
  EXPECT_EQ(values(w), first);
  init::constant_(w, 0.25);
  for (double x : values(w)) EXPECT_EQ(x, 0.25);
  init::zeros_(w);
  init::ones_(w);
  for (double x : values(w)) EXPECT_EQ(x, 1.0);
}

}  // namespace
}  // namespace adept::testing
