// Autograd engine semantics: accumulation, repeated backward, retain_graph, explicit gradients,
// autograd::grad (allow_unused, create_graph / double backward), grad-mode guards, detach,
// retain_grad, leaf rules, version-counter checks and in-place ops on non-leaf tensors.
#include <gtest/gtest.h>

#include "test_util.h"

using namespace adept;
using namespace adept::testing;

namespace {
Tensor leaf(std::initializer_list<double> v) { return T(v, kFloat64).requires_grad_(); }
}  // namespace

TEST(Autograd, AccumulatesWhenATensorFeedsSeveralOps) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = (x * x + sin(x) + x * 3).sum();
  y.backward();
  EXPECT_TRUE(close(x.grad(), T({1, 2, 3}, kFloat64) * 2 + cos(T({1, 2, 3}, kFloat64)) + 3, 1e-12));
  // The same tensor twice in one op.
  Tensor a = leaf({2, -1});
  mul(a, a).sum().backward();
  EXPECT_TRUE(close(a.grad(), T({4, -2}, kFloat64)));
}

TEST(Autograd, TwoBackwardCallsAddUp) {
  Tensor x = leaf({1, 2});
  (x * 3).sum().backward();
  (x * x).sum().backward();
  EXPECT_TRUE(close(x.grad(), T({3 + 2, 3 + 4}, kFloat64)));
  Tensor g = x.grad();
  (x * 1).sum().backward();
  EXPECT_TRUE(close(x.grad(), T({6, 8}, kFloat64)));
  x.set_grad(Tensor());
  EXPECT_FALSE(x.grad().defined());
}

TEST(Autograd, ReusingAFreedGraphRaisesUnlessRetained) {
  Tensor x = leaf({1, 2});
  Tensor y = (x * x).sum();
  y.backward();
  try {
    y.backward();
    FAIL() << "expected AutogradError";
  } catch (const AutogradError& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("second time"), std::string::npos) << e.what();
  }
  Tensor z = (x.exp()).sum();
  z.backward(Tensor(), /*retain_graph=*/true);
  z.backward();
  EXPECT_TRUE(close(x.grad(), T({2, 4}, kFloat64) + exp(T({1, 2}, kFloat64)) * 2, 1e-12));
}

TEST(Autograd, BackwardWithExplicitGradient) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2;
  y.backward(T({1, 0.5, -1}, kFloat64));
  EXPECT_TRUE(close(x.grad(), T({2, 1, -2}, kFloat64)));
  Tensor z = x * 2;
  EXPECT_THROW(z.backward(), AutogradError);                  // non-scalar without gradient
  EXPECT_THROW(z.backward(ones({2}, kFloat64)), ShapeError);   // wrong shape
  EXPECT_THROW(T({1, 2}).sum().backward(), AutogradError);     // does not require grad
  // A multi-output backward through autograd::backward.
  Tensor a = leaf({1}), b = leaf({2});
  autograd::backward({a * 3, b * 4}, {ones({1}, kFloat64), ones({1}, kFloat64)});
  EXPECT_TRUE(close(a.grad(), T({3}, kFloat64)));
  EXPECT_TRUE(close(b.grad(), T({4}, kFloat64)));
}

TEST(Autograd, GradFunctionAllowUnusedAndNoLeafAccumulation) {
  Tensor x = leaf({1, 2}), w = leaf({3, 4}), unused = leaf({0});
  Tensor y = (x * w).sum();
  auto g = autograd::grad({y}, {x, w}, {}, /*retain_graph=*/true);
  EXPECT_TRUE(close(g[0], T({3, 4}, kFloat64)));
  EXPECT_TRUE(close(g[1], T({1, 2}, kFloat64)));
  EXPECT_FALSE(x.grad().defined());  // grad() never touches .grad
  EXPECT_THROW(autograd::grad({y}, {x, unused}, {}, true), AutogradError);
  auto g2 = autograd::grad({y}, {x, unused}, {}, true, false, /*allow_unused=*/true);
  EXPECT_TRUE(g2[0].defined());
  EXPECT_FALSE(g2[1].defined());
  // Gradient w.r.t. a non-leaf intermediate.
  Tensor h = x * 2;
  Tensor out = (h * h).sum();
  auto gh = autograd::grad({out}, {h});
  EXPECT_TRUE(close(gh[0], T({4, 8}, kFloat64)));
}

TEST(Autograd, DoubleBackwardWithCreateGraph) {
  Tensor x = leaf({1, 2, -3});
  Tensor y = (x * x * x).sum();
  auto g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_TRUE(close(g[0], T({3, 12, 27}, kFloat64)));
  EXPECT_TRUE(g[0].requires_grad());
  auto gg = autograd::grad({g[0].sum()}, {x});
  EXPECT_TRUE(close(gg[0], T({6, 12, -18}, kFloat64)));
  // Third order through backward() into .grad.
  Tensor x2 = leaf({0.5});
  Tensor d1 = autograd::grad({sin(x2)}, {x2}, {}, std::nullopt, true)[0];  // cos
  Tensor d2 = autograd::grad({d1}, {x2}, {}, std::nullopt, true)[0];         // -sin
  d2.backward();                                                              // -cos
  EXPECT_NEAR(x2.grad().item<double>(), -std::cos(0.5), 1e-12);
  // create_graph through backward(): .grad carries a graph.
  Tensor z = leaf({2});
  (z * z * z).sum().backward(Tensor(), false, true);
  EXPECT_TRUE(z.grad().requires_grad());
  Tensor gz = z.grad();
  z.set_grad(Tensor());
  gz.sum().backward();
  EXPECT_TRUE(close(z.grad(), T({12}, kFloat64)));
}

TEST(Autograd, GradModeGuards) {
  Tensor x = leaf({1, 2});
  {
    NoGradGuard ng;
    EXPECT_FALSE(is_grad_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_leaf());
    {
      EnableGradGuard eg;
      EXPECT_TRUE((x * 2).requires_grad());
    }
    EXPECT_FALSE(is_grad_enabled());
    x.add_(1);  // in-place on a leaf is allowed under no_grad
  }
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_TRUE(close(x, T({2, 3}, kFloat64)));
  EXPECT_THROW(x.add_(1), AutogradError);  // but not with grad mode on
  EXPECT_TRUE((x * 2).requires_grad());
}

TEST(Autograd, DetachAndLeafRules) {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2;
  EXPECT_FALSE(y.is_leaf());
  EXPECT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(autograd::node_name(*y.grad_fn()), "MulBackward0");
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());  // shares storage
  EXPECT_THROW(y.requires_grad_(false), AutogradError);
  EXPECT_NO_THROW(y.requires_grad_(true));
  EXPECT_THROW(I({1}).requires_grad_(), DtypeError);
  Tensor z = (d * 3).sum();
  EXPECT_FALSE(z.requires_grad());
  Tensor w = x * 3;
  w.detach_();
  EXPECT_FALSE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  // Gradient stops at a detached value.
  Tensor q = (x * x.detach()).sum();
  q.backward();
  EXPECT_TRUE(close(x.grad(), T({1, 2}, kFloat64)));
}

TEST(Autograd, RetainGrad) {
  Tensor x = leaf({1, 2});
  Tensor h = x * 3;
  h.retain_grad();
  EXPECT_TRUE(h.retains_grad());
  Tensor y = (h * h).sum();
  y.backward(Tensor(), true);
  EXPECT_TRUE(close(h.grad(), T({6, 12}, kFloat64)));
  y.backward();
  EXPECT_TRUE(close(h.grad(), T({12, 24}, kFloat64)));  // accumulates like a leaf
  Tensor plain = x * 2;
  (plain * 1).sum().backward();
  EXPECT_FALSE(plain.grad().defined());  // non-leaf without retain_grad keeps no grad
  EXPECT_THROW(T({1}).retain_grad(), AutogradError);
}

TEST(Autograd, ModifyingASavedTensorInPlaceRaises) {
  Tensor x = leaf({0.5, -1});
  Tensor y = x.sigmoid();
  y.mul_(2);
  try {
    y.sum().backward();
    FAIL() << "expected AutogradError";
  } catch (const AutogradError& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an inplace operation"), std::string::npos) << e.what();
  }
  // Through a view of the saved tensor: the counter lives on the storage.
  Tensor a = leaf({1, 2, 3});
  Tensor b = a * 1;
  Tensor c = b * b;  // saves b
  {
    NoGradGuard ng;
    b.narrow(0, 0, 1).fill_(5);
  }
  EXPECT_THROW(c.sum().backward(), AutogradError);
  // Modifying an input that was not saved is fine.
  Tensor p = leaf({1, 2});
  Tensor q = p * 1;
  Tensor r = q + 1;  // add saves nothing
  q.mul_(3);
  EXPECT_NO_THROW(r.sum().backward());
}

TEST(Autograd, InPlaceOnNonLeafGivesCorrectGradients) {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 1;
  y.mul_(3);
  y.add_(x);        // y = 4x
  pow_(y, 2);       // 16 x^2
  y.sum().backward();
  EXPECT_TRUE(close(x.grad(), T({32, 64, 96}, kFloat64)));
  Tensor a = leaf({-1, 2});
  Tensor b = a * 2;
  relu_(b);
  b.sum().backward();
  EXPECT_TRUE(close(a.grad(), T({0, 2}, kFloat64)));
  // A plain tensor written in place from one that requires grad joins the graph.
  Tensor w = leaf({2, 3});
  Tensor buf = zeros({2}, kFloat64);
  buf.add_(w * w);
  EXPECT_TRUE(buf.requires_grad());
  EXPECT_FALSE(buf.is_leaf());
  buf.sum().backward();
  EXPECT_TRUE(close(w.grad(), T({4, 6}, kFloat64)));
  // copy_ into a non-leaf: gradient flows to the source only.
  Tensor s = leaf({5, 6});
  Tensor dst = leaf({1, 1}) * 1;
  dst.copy_(s * 2);
  dst.sum().backward();
  EXPECT_TRUE(close(s.grad(), T({2, 2}, kFloat64)));
  // masked_fill_ on a non-leaf blocks gradient at the filled positions.
  Tensor m = leaf({1, 2, 3});
  Tensor mm = m * 1;
  masked_fill_(mm, tensor(std::vector<bool>{false, true, false}), 0.0);
  (mm * 2).sum().backward();
  EXPECT_TRUE(close(m.grad(), T({2, 0, 2}, kFloat64)));
}

TEST(Autograd, IntegerOutputsNeverRequireGrad) {
  Tensor x = leaf({1, 3, 2});
  Tensor i = argmax(x);
  EXPECT_FALSE(i.requires_grad());
  auto [v, idx] = max(x.view({1, 3}), 1);
  EXPECT_TRUE(v.requires_grad());
  EXPECT_FALSE(idx.requires_grad());
  EXPECT_FALSE(gt(x, 1).requires_grad());
  v.sum().backward();
  EXPECT_TRUE(close(x.grad(), T({0, 1, 0}, kFloat64)));
}

TEST(Autograd, GradDtypeFollowsLeafThroughCasts) {
  Tensor x = T({1, 2}, kFloat32).requires_grad_();
  Tensor y = x.to(kFloat64) * 2;
  y.sum().backward();
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  EXPECT_TRUE(close(x.grad(), T({2, 2})));
  Tensor h = T({1, 2}, kFloat16).requires_grad_();
  (h * h).sum().backward();
  EXPECT_EQ(h.grad().dtype(), kFloat16);
  EXPECT_TRUE(close(h.grad(), T({2, 4})));
}

TEST(Autograd, InPlaceOnResultsOfReductionsAndMatmul) {
  // Results of ops are fresh tensors even when computed through an internal view (keepdim=false,
  // matmul's batch reshape): in-place ops on them are allowed and differentiate correctly.
  Tensor x = leaf({1, 2, 3, 4});
  Tensor s = sum(x.view({2, 2}), {1});
  s.mul_(3);
  s.sum().backward();
  EXPECT_TRUE(close(x.grad(), T({3, 3, 3, 3}, kFloat64)));
  Tensor a = T({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, kFloat64).requires_grad_();
  Tensor m = matmul(a, a);
  m.add_(1);
  m.sum().backward();
  EXPECT_TRUE(a.grad().defined());
  Tensor l = logsumexp(x.view({2, 2}), {1});
  EXPECT_NO_THROW(l.mul_(2));
  auto [v, i] = max(x.view({2, 2}), 1);
  EXPECT_NO_THROW(v.add_(1));
  Tensor p = prod(x);
  EXPECT_NO_THROW(p.add_(1));
  Tensor mm_ = mean(x.view({2, 2}), {0});
  EXPECT_NO_THROW(sub_(mm_, 1.0));
}

TEST(Autograd, InPlaceOnAViewRebasesTheBase) {
  // torch: y.grad_fn becomes CopySlices; d(sum y)/dx = [4, 4, 2].
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2;
  Tensor v = y.narrow(0, 0, 2);
  v.mul_(2);
  EXPECT_EQ(autograd::node_name(*y.grad_fn()), "CopySlices");
  y.sum().backward();
  EXPECT_TRUE(close(x.grad(), T({4, 4, 2}, kFloat64)));
}

TEST(Autograd, PostAccumulateGradHookSeesTheAccumulatedGrad) {
  // torch: the hook runs after .grad holds this backward's sum (both uses of x), once per backward,
  // with the leaf itself; not for autograd::grad; remove() stops it.
  Tensor x = leaf({1, 2});
  std::vector<Tensor> seen;
  uint64_t id = x.register_post_accumulate_grad_hook([&](const Tensor& t) {
    EXPECT_TRUE(t.is_same(x));
    seen.push_back(t.grad().clone());
  });
  (x * x + x).sum().backward();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(close(seen[0], T({3, 5}, kFloat64)));
  (x * 2).sum().backward();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_TRUE(close(seen[1], T({5, 7}, kFloat64)));  // accumulated before the hook ran
  autograd::grad({(x * x).sum()}, {x});
  EXPECT_EQ(seen.size(), 2u);
  x.remove_post_accumulate_grad_hook(id);
  x.remove_post_accumulate_grad_hook(id);  // twice is fine
  (x * 2).sum().backward();
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_THROW(T({1.0}).register_post_accumulate_grad_hook([](const Tensor&) {}), AutogradError);
  EXPECT_THROW((x * 2).register_post_accumulate_grad_hook([](const Tensor&) {}), AutogradError);
}

TEST(Autograd, QueuedCallbackRunsAfterEveryGradient) {
  Tensor a = leaf({1}), b = leaf({2});
  int calls = 0;
  auto hook = [&](const Tensor&) {
    autograd::queue_callback([&] {
      ++calls;
      EXPECT_TRUE(a.grad().defined() && b.grad().defined());  // the whole backward is done
      if (calls == 1) autograd::queue_callback([&] { calls += 10; });
    });
  };
  a.register_post_accumulate_grad_hook(hook);
  (a * b).sum().backward();
  EXPECT_EQ(calls, 11);
  EXPECT_THROW(autograd::queue_callback([] {}), AutogradError);
}
