// SiLU's fused backward kernel (silu_backward_kernel): the Highway float32 run against a float64
// reference, the fused gradient against the composed formula over dtypes and layouts, large inputs,
// finite differences in float64, and the create_graph path (the formula, differentiable again).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "adept/adept.h"
#include "backends/cpu/simd.h"
#include "gradcheck.h"

namespace adept {
namespace {

// The reference formula written with tensor ops (what silu's backward computes under create_graph).
Tensor silu_grad_formula(const Tensor& g, const Tensor& x) {
  NoGradGuard ng;
  Tensor s = sigmoid(x);
  return g * s * (1 + x * (1 - s));
}

Tensor silu_grad_fused(const Tensor& g, const Tensor& x) {
  Tensor xl = x.detach().requires_grad_();
  return autograd::grad({silu(xl)}, {xl}, {g})[0];
}

TEST(SiluBackwardSimd, MatchesFloat64ReferenceAcrossLengths) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  for (int64_t n : {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 1000, 4099}) {
    std::vector<float> g(n), x(n), out(n, -7.f);
    for (int64_t i = 0; i < n; ++i) {
      g[i] = normal(rng);
      x[i] = normal(rng) * (i % 3 == 0 ? 40.f : 3.f);  // |x| up to ~150: exp(-x) overflows float
    }
    cpu::simd::silu_backward_f32(out.data(), g.data(), x.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const double xd = x[i], s = 1.0 / (1.0 + std::exp(-xd));
      const double want = g[i] * s * (1.0 + xd * (1.0 - s));
      // float rounding of s (absolute ~eps) is amplified by x in x (1 - s); the rest is relative;
      // below FLT_MIN (x < ~-87) s is flushed to 0 as in the scalar formula and in torch
      const double bound = std::fabs(g[i]) * (1.0 + std::fabs(xd)) *
                           (8 * std::numeric_limits<float>::epsilon() * s + 2 * std::numeric_limits<float>::min());
      ASSERT_TRUE(std::isfinite(out[i])) << "n=" << n << " x=" << x[i];
      ASSERT_LE(std::fabs(out[i] - want), bound) << "n=" << n << " i=" << i << " x=" << x[i] << " g=" << g[i];
    }
  }
}

TEST(SiluBackwardSimd, SpecialValuesAsScalarFormula) {
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {0.f, -0.f, 100.f, -100.f, 88.8f, -88.8f, 1e4f, -1e4f, inf, -inf, nan};
  const std::vector<float> g(x.size(), 1.5f);
  std::vector<float> out(x.size());
  cpu::simd::silu_backward_f32(out.data(), g.data(), x.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const float s = 1.f / (1.f + std::exp(-x[i]));
    const float want = g[i] * s * (1.f + x[i] * (1.f - s));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(out[i])) << "x=" << x[i];
    } else {
      EXPECT_FLOAT_EQ(out[i], want) << "x=" << x[i];
    }
  }
}

// Through the op, on the layouts the kernel sees: contiguous (SIMD runs), transposed and stepped
// slices (scalar strided runs), zero-size, and a tensor large enough to run on several threads.
TEST(SiluBackward, FusedMatchesFormulaOverDtypesAndLayouts) {
  Generator gen(3);
  for (Dtype dt : {kFloat32, kFloat64}) {
    const double tol = dt == kFloat32 ? 2e-6 : 1e-14;
    Tensor base = randn({64, 1030}, TensorOptions(dt), &gen) * 30;
    Tensor gbase = randn({64, 1030}, TensorOptions(dt), &gen);
    const std::vector<std::pair<const char*, std::pair<Tensor, Tensor>>> cases = {
        {"contiguous", {base, gbase}},
        {"transposed", {base.t(), gbase.t()}},
        {"stepped", {base.slice(1, 1, std::nullopt, 3), gbase.slice(1, 0, std::nullopt, 3).slice(1, 0, 343)}},
        {"mixed", {base.t().contiguous(), gbase.t()}},
        {"zero-size", {base.slice(0, 0, 0), gbase.slice(0, 0, 0)}},
        {"small", {base.narrow(1, 0, 5).narrow(0, 0, 3), gbase.narrow(1, 0, 5).narrow(0, 0, 3)}},
    };
    for (const auto& [name, xg] : cases) {
      SCOPED_TRACE(std::string(name) + " " + dtype_name(dt));
      const auto& [x, g] = xg;
      ASSERT_EQ(x.sizes(), g.sizes());
      Tensor got = silu_grad_fused(g, x), want = silu_grad_formula(g, x);
      EXPECT_EQ(got.dtype(), dt);
      EXPECT_EQ(got.sizes(), x.sizes());
      EXPECT_FALSE(got.requires_grad());
      EXPECT_TRUE(all(isfinite(got)).item().to_bool());
      EXPECT_TRUE(allclose(got, want, tol, tol));
    }
  }
}

TEST(SiluBackward, LargeInputsStayFinite) {
  Tensor x = linspace(-100, 100, 200001).to(kFloat32);
  Tensor g = ones_like(x);
  Tensor got = silu_grad_fused(g, x);
  EXPECT_TRUE(all(isfinite(got)).item().to_bool());
  EXPECT_TRUE(allclose(got, silu_grad_formula(g.to(kFloat64), x.to(kFloat64)).to(kFloat32), 1e-5, 1e-6));
}

TEST(SiluBackward, GradcheckFloat64) {
  Generator gen(5);
  Tensor x = (randn({7, 9}, TensorOptions(kFloat64), &gen) * 4).t().requires_grad_();  // non-contiguous
  EXPECT_TRUE(testing::gradcheck([](const std::vector<Tensor>& in) { return silu(in[0]); }, {x}));
}

// create_graph: the gradient keeps a graph (the composed formula), and its own gradient (the second
// derivative) passes finite differences.
TEST(SiluBackward, CreateGraphIsDifferentiable) {
  Generator gen(9);
  Tensor x = (randn({4, 6}, TensorOptions(kFloat64), &gen) * 3).requires_grad_();
  Tensor v = randn({4, 6}, TensorOptions(kFloat64), &gen);
  Tensor gx = autograd::grad({silu(x)}, {x}, {v}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_TRUE(gx.requires_grad());
  EXPECT_TRUE(allclose(gx.detach(), silu_grad_fused(v, x), 1e-14, 1e-14));
  // The numeric pass runs on plain copies under no-grad: there the first derivative is the formula.
  auto first = [v](const std::vector<Tensor>& in) {
    if (!in[0].requires_grad()) return silu_grad_formula(v, in[0]);
    return autograd::grad({silu(in[0])}, {in[0]}, {v}, std::nullopt, /*create_graph=*/true)[0];
  };
  EXPECT_TRUE(testing::gradcheck(first, {x}));
}

}  // namespace
}  // namespace adept
