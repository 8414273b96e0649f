// Every differentiable op of adept/ops/{pointwise,reduce,shape,linalg}.h and the views, checked
// against finite differences in float64 on random inputs, including broadcast and non-contiguous
// ones. Inputs are drawn away from points of non-differentiability (|x| > 0.1 for abs/relu...,
// distinct values for max/min).
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "test_util.h"

using namespace adept;
using namespace adept::testing;

namespace {

using In = std::vector<Tensor>;

uint64_t g_seed = 100;
// Random float64 leaf on [lo, hi); `nc` gives a non-contiguous leaf holding the values.
Tensor R(const Shape& s, double lo = -2, double hi = 2, bool nc = false) {
  Tensor t = uniform(s, lo, hi, kFloat64, g_seed++);
  if (nc) t = noncontig(t);
  return t.requires_grad_();
}
// Random values with |x| in [0.2, 2] (away from 0 and integers' kinks are handled per op).
Tensor Rnz(const Shape& s, bool nc = false) {
  Tensor mag = uniform(s, 0.2, 2, kFloat64, g_seed++);
  Tensor sgn = sign(uniform(s, -1, 1, kFloat64, g_seed++));
  Tensor t = mag * sgn;
  if (nc) t = noncontig(t);
  return t.requires_grad_();
}
// Values in (k + 0.1, k + 0.9): away from integers (floor/round/remainder kinks).
Tensor Rfrac(const Shape& s) {
  const Tensor whole = floor(uniform(s, -3, 3, kFloat64, g_seed++));  // two statements: one seed each, in order
  Tensor t = whole + uniform(s, 0.1, 0.9, kFloat64, g_seed++);
  return t.requires_grad_();
}
Tensor C(const Tensor& t) { return t.detach(); }  // a constant input

struct Case {
  std::string name;
  GradFn f;
  std::vector<Tensor> inputs;
  GradcheckOptions opts = {};
};

void run(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      EXPECT_TRUE(gradcheck(c.f, c.inputs, c.opts)) << c.name;
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << " threw: " << e.what();
    }
  }
}

}  // namespace

TEST(Gradcheck, BinaryPointwise) {
  std::vector<Case> cases = {
      {"add", [](const In& x) { return add(x[0], x[1]); }, {R({2, 3}), R({2, 3}, -2, 2, true)}},
      {"add_broadcast_alpha", [](const In& x) { return add(x[0], x[1], 2.5); }, {R({2, 1, 3}), R({4, 1})}},
      {"add_scalar", [](const In& x) { return add(x[0], 3.0, 2); }, {R({3})}},
      {"sub_broadcast", [](const In& x) { return sub(x[0], x[1], -1.5); }, {R({3}), R({2, 3}, -2, 2, true)}},
      {"sub_scalar", [](const In& x) { return sub(x[0], 1.5); }, {R({3})}},
      {"rsub", [](const In& x) { return rsub(x[0], 2.0); }, {R({3})}},
      {"mul", [](const In& x) { return mul(x[0], x[1]); }, {R({2, 3}, -2, 2, true), R({3})}},
      {"mul_0d", [](const In& x) { return mul(x[0], x[1]); }, {R({2, 3}), R({})}},
      {"mul_scalar", [](const In& x) { return x[0] * 1.5; }, {R({4})}},
      {"mul_one_const", [](const In& x) { return mul(x[0], x[1]); }, {R({3}), C(R({3}))}},
      {"div", [](const In& x) { return div(x[0], x[1]); }, {R({2, 3}), Rnz({2, 1})}},
      {"div_scalar_num", [](const In& x) { return div(2.0, x[0]); }, {Rnz({3})}},
      {"div_scalar_den", [](const In& x) { return div(x[0], 4.0); }, {R({3})}},
      {"remainder", [](const In& x) { return remainder(x[0], x[1]); }, {Rfrac({4}), C(T({1.5, -1.5, 2.5, -2.5}, kFloat64))}},
      {"remainder_both", [](const In& x) { return remainder(x[0], x[1]); },
       {T({3.3, -3.3, 5.7, -5.7}, kFloat64).requires_grad_(), T({1.5, 1.5, -2.5, -2.5}, kFloat64).requires_grad_()}},
      {"pow_tensor", [](const In& x) { return pow(x[0], x[1]); }, {R({2, 3}, 0.5, 2), R({3}, -2, 2, true)}},
      {"pow_scalar", [](const In& x) { return pow(x[0], 2.5); }, {R({3}, 0.5, 2)}},
      {"pow_scalar_int", [](const In& x) { return pow(x[0], 3); }, {R({3})}},
      {"pow_scalar_neg", [](const In& x) { return pow(x[0], -1.5); }, {R({3}, 0.5, 2)}},
      {"pow_scalar_base", [](const In& x) { return pow(2.0, x[0]); }, {R({3})}},
      {"maximum", [](const In& x) { return maximum(x[0], x[1]); }, {R({3, 2}), R({2}, -2, 2, true)}},
      {"minimum", [](const In& x) { return minimum(x[0], x[1]); }, {R({3, 2}), R({3, 1})}},
      {"atan2", [](const In& x) { return atan2(x[0], x[1]); }, {R({2, 3}), Rnz({3})}},
      {"where", [](const In& x) { return where(gt(C(x[2]), 0), x[0], x[1]); }, {R({2, 3}), R({3}), R({2, 1})}},
      {"where_scalar", [](const In& x) { return where(gt(C(x[1]), 0), x[0], 0.5); }, {R({4}), R({4})}},
      {"clamp_scalar", [](const In& x) { return clamp(x[0], Scalar(-1.0), Scalar(1.0)); }, {Rfrac({6})}},
      {"clamp_min_only", [](const In& x) { return clamp(x[0], Scalar(0.5), std::nullopt); }, {Rfrac({6})}},
      {"clamp_tensor", [](const In& x) { return clamp(x[0], x[1], x[2]); },
       {R({2, 3}), C(R({3}, -2, -0.5)), C(R({2, 1}, 0.5, 2))}},
      {"masked_fill", [](const In& x) { return masked_fill(x[0], gt(C(x[1]), 0), 2.0); }, {R({2, 3}), R({3})}},
      {"masked_fill_tensor", [](const In& x) { return masked_fill(x[0], gt(C(x[1]), 0), x[2]); },
       {R({2, 3}), R({3}), R({})}},
  };
  run(cases);
}

TEST(Gradcheck, UnaryPointwise) {
  std::vector<Case> cases;
  auto u = [&](const std::string& n, Tensor (*fn)(const Tensor&), Tensor x) {
    cases.push_back({n, [fn](const In& v) { return fn(v[0]); }, {x}});
  };
  u("neg", neg, R({2, 3}, -2, 2, true));
  u("abs", abs, Rnz({2, 3}, true));
  u("sign", sign, Rnz({4}));
  u("floor", floor, Rfrac({4}));
  u("ceil", ceil, Rfrac({4}));
  u("trunc", trunc, Rfrac({4}));
  u("exp", exp, R({2, 3}, -2, 2, true));
  u("exp2", exp2, R({4}));
  u("log", log, R({2, 3}, 0.2, 3, true));
  u("log2", log2, R({4}, 0.2, 3));
  u("log1p", log1p, R({4}, -0.8, 3));
  u("expm1", expm1, R({4}));
  u("sqrt", sqrt, R({4}, 0.2, 3));
  u("rsqrt", rsqrt, R({4}, 0.2, 3));
  u("square", square, R({2, 3}, -2, 2, true));
  u("reciprocal", reciprocal, Rnz({4}));
  u("sin", sin, R({4}));
  u("cos", cos, R({4}));
  u("tan", tan, R({4}, -1.2, 1.2));
  u("atan", atan, R({4}));
  u("tanh", tanh, R({4}));
  u("sigmoid", sigmoid, R({2, 3}, -4, 4, true));
  u("relu", relu, Rnz({2, 3}, true));
  u("silu", silu, R({4}, -4, 4));
  u("erf", erf, R({4}));
  cases.push_back({"round", [](const In& x) { return round(x[0]); }, {Rfrac({4})}});
  cases.push_back({"round_decimals", [](const In& x) { return round(x[0], 1); }, {Rfrac({4})}});
  cases.push_back({"gelu", [](const In& x) { return gelu(x[0]); }, {R({5}, -3, 3)}});
  cases.push_back({"gelu_tanh", [](const In& x) { return gelu(x[0], "tanh"); }, {R({5}, -3, 3)}});
  cases.push_back({"softplus", [](const In& x) { return softplus(x[0]); }, {R({5}, -3, 3)}});
  cases.push_back({"softplus_beta_threshold", [](const In& x) { return softplus(x[0], 2, 1); },
                   {T({-2, -0.3, 0.2, 0.8, 1.5}, kFloat64).requires_grad_()}});
  cases.push_back({"leaky_relu", [](const In& x) { return leaky_relu(x[0], 0.2); }, {Rnz({5})}});
  cases.push_back({"nan_to_num", [](const In& x) { return nan_to_num(x[0]); }, {R({4})}});
  cases.push_back({"to_float32_and_back", [](const In& x) { return x[0].to(kFloat32).to(kFloat64) * 3; }, {R({4})},
                   GradcheckOptions{1e-3, 1e-4, 1e-3}});
  cases.push_back({"clone_contiguous", [](const In& x) { return x[0].t().contiguous().clone() * x[0].t(); },
                   {R({2, 3})}});
  run(cases);
}

TEST(Gradcheck, InPlaceForms) {
  std::vector<Case> cases = {
      {"add_", [](const In& x) { Tensor y = x[0] * 1; y.add_(x[1], 2); return y; }, {R({2, 3}), R({3})}},
      {"sub_mul_div_", [](const In& x) { Tensor y = x[0] * 1; y.sub_(x[1]).mul_(x[1]).div_(x[2]); return y; },
       {R({3}), R({3}), Rnz({3})}},
      {"scalar_inplace", [](const In& x) { Tensor y = x[0] * 1; y.add_(2.0).mul_(3.0).div_(2.0); return y; }, {R({3})}},
      {"pow_clamp_", [](const In& x) { Tensor y = x[0] * 1; pow_(y, 2); clamp_(y, Scalar(0.5), Scalar(2.0)); return y; },
       {T({0.3, 0.9, 1.2, 1.6}, kFloat64).requires_grad_()}},
      {"unary_", [](const In& x) { Tensor y = x[0] * 1; neg_(y); exp_(y); sqrt_(y); sigmoid_(y); relu_(y); return y; },
       {R({4})}},
      {"copy_", [](const In& x) { Tensor y = x[0] * 1; y.copy_(x[1] * 2); return y * x[0]; }, {R({2, 3}), R({3})}},
      {"masked_fill_", [](const In& x) { Tensor y = x[0] * 1; masked_fill_(y, gt(C(x[1]), 0), 1.0); return y; },
       {R({4}), R({4})}},
  };
  run(cases);
}

TEST(Gradcheck, Reductions) {
  std::vector<Case> cases = {
      {"sum_all", [](const In& x) { return sum(x[0]); }, {R({2, 3}, -2, 2, true)}},
      {"sum_dims_keepdim", [](const In& x) { return sum(x[0], {0, 2}, true); }, {R({2, 3, 2})}},
      {"sum_neg_dim", [](const In& x) { return sum(x[0], {-1}); }, {R({2, 3}, -2, 2, true)}},
      {"mean", [](const In& x) { return mean(x[0], {1}); }, {R({2, 3, 2})}},
      {"mean_all", [](const In& x) { return mean(x[0]); }, {R({3, 2}, -2, 2, true)}},
      {"prod_all", [](const In& x) { return prod(x[0]); }, {R({2, 3}, 0.5, 1.5)}},
      {"prod_dim", [](const In& x) { return prod(x[0], 1, true); }, {R({2, 3}, -2, 2, true)}},
      {"prod_with_zero", [](const In& x) { return prod(x[0], 0); }, {T({0, 2, 3, 0, 1.5, 0}, {3, 2}, kFloat64).requires_grad_()}},
      {"max_all", [](const In& x) { return max(x[0]); }, {R({2, 3})}},
      {"min_all", [](const In& x) { return min(x[0]); }, {R({2, 3}, -2, 2, true)}},
      {"max_dim", [](const In& x) { return std::get<0>(max(x[0], 1)); }, {R({3, 4}, -2, 2, true)}},
      {"min_dim_keepdim", [](const In& x) { return std::get<0>(min(x[0], 0, true)); }, {R({3, 4})}},
      {"amax", [](const In& x) { return amax(x[0], {0, 2}); }, {R({2, 3, 2})}},
      {"amin", [](const In& x) { return amin(x[0], {1}, true); }, {R({2, 3}, -2, 2, true)}},
      {"var", [](const In& x) { return var(x[0], {1}); }, {R({2, 4})}},
      {"var_all_correction0", [](const In& x) { return var(x[0], {}, 0); }, {R({2, 3}, -2, 2, true)}},
      {"std", [](const In& x) { return adept::std(x[0], {0}, 1, true); }, {R({3, 2})}},
      {"norm2", [](const In& x) { return norm(x[0]); }, {R({2, 3}, -2, 2, true)}},
      {"norm2_dim", [](const In& x) { return norm(x[0], 2, {1}); }, {R({2, 3})}},
      {"norm1", [](const In& x) { return norm(x[0], 1, {0}); }, {Rnz({2, 3})}},
      {"norm3", [](const In& x) { return norm(x[0], 3); }, {Rnz({2, 3})}},
      {"norm_inf", [](const In& x) { return norm(x[0], std::numeric_limits<double>::infinity(), {1}); }, {Rnz({2, 3})}},
      {"logsumexp", [](const In& x) { return logsumexp(x[0], {1}); }, {R({2, 3}, -2, 2, true)}},
      {"logsumexp_keepdim", [](const In& x) { return logsumexp(x[0], {0, 1}, true); }, {R({2, 3})}},
      {"softmax", [](const In& x) { return softmax(x[0], 1); }, {R({2, 3}, -2, 2, true)}},
      {"softmax_dim0", [](const In& x) { return softmax(x[0], 0); }, {R({3, 2})}},
      {"log_softmax", [](const In& x) { return log_softmax(x[0], -1); }, {R({2, 3}, -2, 2, true)}},
      {"cumsum", [](const In& x) { return cumsum(x[0], 1); }, {R({2, 3}, -2, 2, true)}},
      {"cumprod", [](const In& x) { return cumprod(x[0], 0); }, {R({3, 2})}},
      {"cumprod_with_zero", [](const In& x) { return cumprod(x[0], 1); },
       {T({1.5, 0, 2, -1, 0.5, 3, 0, 0}, {2, 4}, kFloat64).requires_grad_()}},
  };
  run(cases);
}

TEST(Gradcheck, Views) {
  std::vector<Case> cases = {
      {"view", [](const In& x) { return x[0].view({3, 2}) * 2; }, {R({2, 3})}},
      {"reshape_copy", [](const In& x) { return x[0].reshape({-1}); }, {R({2, 3}, -2, 2, true)}},
      {"permute", [](const In& x) { return x[0].permute({2, 0, 1}); }, {R({2, 3, 2})}},
      {"transpose", [](const In& x) { return x[0].transpose(0, -1); }, {R({2, 3}, -2, 2, true)}},
      {"t", [](const In& x) { return matmul(x[0].t(), x[0]); }, {R({2, 3})}},
      {"movedim", [](const In& x) { return movedim(x[0], 0, 2); }, {R({2, 3, 2})}},
      {"narrow", [](const In& x) { return x[0].narrow(1, 1, 2); }, {R({2, 4}, -2, 2, true)}},
      {"select", [](const In& x) { return x[0].select(0, -1); }, {R({3, 2})}},
      {"slice_step", [](const In& x) { return x[0].slice(1, 1, std::nullopt, 2); }, {R({2, 5}, -2, 2, true)}},
      {"expand", [](const In& x) { return x[0].expand({2, 3, 4}); }, {R({3, 1})}},
      {"expand_noncontig", [](const In& x) { return x[0].unsqueeze(0).expand({3, 2, 2}); }, {R({2, 2}, -2, 2, true)}},
      {"squeeze", [](const In& x) { return x[0].squeeze(); }, {R({1, 3, 1})}},
      {"squeeze_dim", [](const In& x) { return x[0].squeeze(0); }, {R({1, 3})}},
      {"unsqueeze", [](const In& x) { return x[0].unsqueeze(1); }, {R({2, 3}, -2, 2, true)}},
      {"flatten", [](const In& x) { return x[0].flatten(1); }, {R({2, 2, 2}, -2, 2, true)}},
      {"unflatten", [](const In& x) { return x[0].unflatten(1, {2, 2}); }, {R({3, 4})}},
      {"unbind", [](const In& x) { auto u = x[0].unbind(1); return u[0] * 2 + u[2] * u[1]; }, {R({2, 3})}},
      {"chunk", [](const In& x) { auto c = x[0].chunk(2, 0); return c[0] * 3 + c[1]; }, {R({4, 2}, -2, 2, true)}},
      {"split_sizes", [](const In& x) { auto s = x[0].split(Shape{1, 2}, 1); return s[1] * s[0]; }, {R({2, 3})}},
      {"split_unused_part", [](const In& x) { return x[0].split(2, 0)[1] * 2; }, {R({4, 2})}},
      {"as_strided", [](const In& x) { return x[0].as_strided({2, 2}, {1, 2}, 1); }, {R({6})}},
      {"as_strided_overlap", [](const In& x) { return x[0].as_strided({3, 3}, {1, 1}); }, {R({5})}},
      {"as_strided_of_view", [](const In& x) { return x[0].narrow(0, 1, 3).as_strided({2}, {2}); }, {R({5})}},
      {"view_of_view_chain", [](const In& x) { return x[0].t().select(0, 1).unsqueeze(0).expand({2, 2}) * x[0].narrow(1, 0, 2); },
       {R({2, 3})}},
  };
  run(cases);
}

TEST(Gradcheck, ShapeCopies) {
  std::vector<Case> cases = {
      {"cat", [](const In& x) { return cat({x[0], x[1]}, 1); }, {R({2, 2}), R({2, 3}, -2, 2, true)}},
      {"cat_skips_empty", [](const In& x) { return cat({zeros({0}, kFloat64), x[0]}, 0); }, {R({3})}},
      {"stack", [](const In& x) { return stack({x[0], x[1]}, -1); }, {R({2, 3}), R({2, 3}, -2, 2, true)}},
      {"flip", [](const In& x) { return flip(x[0], {0, 1}); }, {R({2, 3}, -2, 2, true)}},
      {"roll", [](const In& x) { return roll(x[0], {1, -1}, {0, 1}); }, {R({3, 2})}},
      {"roll_flat", [](const In& x) { return roll(x[0], {2}); }, {R({2, 3})}},
      {"repeat", [](const In& x) { return repeat(x[0], {2, 1, 2}); }, {R({2, 3}, -2, 2, true)}},
      {"tile", [](const In& x) { return tile(x[0], {2}); }, {R({2, 3})}},
      {"pad_constant", [](const In& x) { return pad(x[0], {1, 2}, "constant", 0.5); }, {R({2, 3})}},
      {"pad_crop", [](const In& x) { return pad(x[0], {-1, 1, 1, 0}); }, {R({2, 3})}},
      {"pad_reflect", [](const In& x) { return pad(x[0], {2, 1}, "reflect"); }, {R({1, 2, 4})}},
      {"pad_replicate", [](const In& x) { return pad(x[0], {1, 2, 1, 1}, "replicate"); }, {R({1, 2, 3})}},
      {"pad_circular", [](const In& x) { return pad(x[0], {1, 2}, "circular"); }, {R({1, 2, 3})}},
      {"tril", [](const In& x) { return tril(x[0], 0); }, {R({3, 3}, -2, 2, true)}},
      {"triu", [](const In& x) { return triu(x[0], 1); }, {R({3, 4})}},
      {"meshgrid", [](const In& x) { auto m = meshgrid({x[0], x[1]}); return m[0] * m[1]; }, {R({2}), R({3})}},
  };
  run(cases);
}

TEST(Gradcheck, Linalg) {
  std::vector<Case> cases = {
      {"mm", [](const In& x) { return mm(x[0], x[1]); }, {R({2, 3}), R({3, 4}, -2, 2, true)}},
      {"mm_transposed", [](const In& x) { return mm(x[0].t(), x[1].t()); }, {R({3, 2}), R({4, 3})}},
      {"bmm", [](const In& x) { return bmm(x[0], x[1]); }, {R({2, 2, 3}), R({2, 3, 2})}},
      {"dot", [](const In& x) { return dot(x[0], x[1]); }, {R({4}), R({4}, -2, 2, true)}},
      {"matmul_1d_2d", [](const In& x) { return matmul(x[0], x[1]); }, {R({3}), R({3, 2})}},
      {"matmul_2d_1d", [](const In& x) { return matmul(x[0], x[1]); }, {R({2, 3}), R({3})}},
      {"matmul_batch_2d", [](const In& x) { return matmul(x[0], x[1]); }, {R({2, 2, 3}), R({3, 2})}},
      {"matmul_2d_batch", [](const In& x) { return matmul(x[0], x[1]); }, {R({2, 3}), R({2, 3, 2})}},
      {"matmul_broadcast_batch", [](const In& x) { return matmul(x[0], x[1]); }, {R({2, 1, 2, 3}), R({3, 3, 2})}},
      {"matmul_1d_batch", [](const In& x) { return matmul(x[0], x[1]); }, {R({3}), R({2, 3, 2})}},
      {"matmul_batch_1d", [](const In& x) { return matmul(x[0], x[1]); }, {R({2, 2, 3}, -2, 2, true), R({3})}},
      {"addmm", [](const In& x) { return addmm(x[0], x[1], x[2], 0.5, 2.0); }, {R({3}), R({2, 4}), R({4, 3})}},
      {"addmm_beta0", [](const In& x) { return addmm(x[0], x[1], x[2], 0.0); }, {R({2, 3}), R({2, 4}), R({4, 3})}},
  };
  run(cases);
}

TEST(Gradcheck, DetectsAWrongGradient) {
  // detach() hides one factor from autograd: its gradient is x, the true derivative 2x.
  GradFn wrong = [](const In& x) { return x[0].detach() * x[0]; };
  EXPECT_FALSE(gradcheck(wrong, {R({3}, 0.5, 2)}));
  GradFn right = [](const In& x) { return x[0] * x[0]; };
  EXPECT_TRUE(gradcheck(right, {R({3}, 0.5, 2)}));
}
