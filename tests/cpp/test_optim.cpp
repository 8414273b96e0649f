// Optimizers, LR schedulers, gradient clipping and ModelEMA: updates checked against the update
// rules worked out by hand in the test (float64), state_dict round trips and error types.
#include <cmath>
#include <numbers>

#include "test_util.h"

namespace adept::testing {
namespace {

using namespace adept::optim;

Tensor leaf(std::initializer_list<double> v) { return T(v, kFloat64).requires_grad_(); }

void set_grad(Tensor& p, std::initializer_list<double> g) { p.set_grad(T(g, kFloat64)); }

TEST(OptimSGD, MomentumDampeningWeightDecayMatchHandComputedSteps) {
  for (bool nesterov : {false, true}) {
    const double lr = 0.1, m = 0.9, damp = nesterov ? 0.0 : 0.1, wd = 0.01;
    Tensor p = leaf({1.0, -2.0});
    SGD opt({p}, {.lr = lr, .momentum = m, .dampening = damp, .weight_decay = wd, .nesterov = nesterov});
    std::vector<double> x = {1.0, -2.0}, buf(2);
    const std::vector<std::vector<double>> grads = {{0.5, -1.5}, {0.25, 2.0}, {-1.0, 0.75}};
    for (size_t s = 0; s < grads.size(); ++s) {
      p.set_grad(tensor(grads[s], TensorOptions(kFloat64)));
      opt.step();
      for (int i = 0; i < 2; ++i) {
        double d = grads[s][i] + wd * x[i];
        buf[i] = s == 0 ? d : m * buf[i] + (1 - damp) * d;
        x[i] -= lr * (nesterov ? d + m * buf[i] : buf[i]);
      }
      EXPECT_TRUE(close(p, tensor(x, TensorOptions(kFloat64)), 1e-14, 1e-15)) << "step " << s;
    }
    EXPECT_TRUE(close(opt.state(p).at("momentum_buffer"), tensor(buf, TensorOptions(kFloat64)), 1e-14, 1e-15));
  }
}

TEST(OptimSGD, PlainAndMaximizeAndParamsWithoutGrad) {
  Tensor p = leaf({1.0, 2.0}), q = leaf({5.0});
  SGD opt({p, q}, {.lr = 0.5, .maximize = true});
  set_grad(p, {1.0, -1.0});
  opt.step();
  EXPECT_TRUE(close(p, T({1.5, 1.5}, kFloat64)));
  EXPECT_EQ(values(q), std::vector<double>{5.0});  // no grad: untouched, no state
  EXPECT_TRUE(opt.state_dict().state.empty());     // momentum 0 keeps no buffer
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
}

TEST(OptimAdam, AdamAmsgradAdamWMatchHandComputedSteps) {
  struct Case { bool decoupled, amsgrad; double wd; };
  for (const Case c : {Case{false, false, 0.0}, Case{false, true, 0.1}, Case{true, false, 0.1}, Case{true, true, 0.0}}) {
    const double lr = 0.01, b1 = 0.8, b2 = 0.9, eps = 1e-3;
    Tensor p = leaf({0.5, -1.0, 2.0});
    AdamOptions o{.lr = lr, .betas = {b1, b2}, .eps = eps, .weight_decay = c.wd, .amsgrad = c.amsgrad};
    std::unique_ptr<Optimizer> opt = c.decoupled ? std::unique_ptr<Optimizer>(new AdamW({p}, o))
                                                 : std::unique_ptr<Optimizer>(new Adam({p}, o));
    std::vector<double> x = {0.5, -1.0, 2.0}, m(3), v(3), vmax(3);
    const std::vector<std::vector<double>> grads = {{0.3, -0.2, 1.0}, {-0.1, -0.4, 0.05}, {0.2, 0.6, -0.7}};
    for (size_t s = 0; s < grads.size(); ++s) {
      p.set_grad(tensor(grads[s], TensorOptions(kFloat64)));
      opt->step();
      const double t = static_cast<double>(s + 1);
      for (int i = 0; i < 3; ++i) {
        double g = grads[s][i];
        if (c.decoupled) x[i] *= 1 - lr * c.wd;
        else g += c.wd * x[i];
        m[i] = b1 * m[i] + (1 - b1) * g;
        v[i] = b2 * v[i] + (1 - b2) * g * g;
        vmax[i] = std::max(vmax[i], v[i]);
        const double second = c.amsgrad ? vmax[i] : v[i];
        x[i] -= lr / (1 - std::pow(b1, t)) * m[i] / (std::sqrt(second) / std::sqrt(1 - std::pow(b2, t)) + eps);
      }
      EXPECT_TRUE(close(p, tensor(x, TensorOptions(kFloat64)), 1e-13, 1e-15))
          << "decoupled=" << c.decoupled << " amsgrad=" << c.amsgrad << " step " << s;
    }
    const ParamState& st = opt->state(p);
    EXPECT_EQ(st.at("step").dtype(), kFloat32);
    EXPECT_EQ(st.at("step").item<double>(), 3.0);
    EXPECT_EQ(st.count("max_exp_avg_sq"), c.amsgrad ? 1u : 0u);
  }
}

TEST(OptimAdam, AdamWDefaultsToWeightDecay1em2) {
  Tensor p = leaf({1.0});
  AdamW w({p});
  Adam a({p.detach().clone().requires_grad_()});
  EXPECT_EQ(option_number(w.param_groups()[0].options, "weight_decay", "t"), 1e-2);
  EXPECT_EQ(option_number(a.param_groups()[0].options, "weight_decay", "t"), 0.0);
  AdamW explicit_zero({p.detach().clone().requires_grad_()}, {.weight_decay = 0.0});
  EXPECT_EQ(option_number(explicit_zero.param_groups()[0].options, "weight_decay", "t"), 0.0);
}

TEST(Optim, GroupOptionsAreReadAtEachStep) {
  Tensor p = leaf({1.0}), b = leaf({1.0});
  SGD opt(std::vector<ParamGroup>{{{p}, {}}, {{b}, {{"lr", 0.5}, {"weight_decay", 0.0}}}}, {.lr = 0.1, .weight_decay = 1.0});
  set_grad(p, {1.0});
  set_grad(b, {1.0});
  opt.step();
  EXPECT_DOUBLE_EQ(values(p)[0], 1.0 - 0.1 * (1.0 + 1.0));
  EXPECT_DOUBLE_EQ(values(b)[0], 1.0 - 0.5 * 1.0);
  opt.param_groups()[0].options["lr"] = 1.0;
  opt.step();
  EXPECT_DOUBLE_EQ(values(p)[0], 0.8 - 1.0 * (1.0 + 0.8));
}

TEST(Optim, ZeroGrad) {
  Tensor p = leaf({1.0, 2.0});
  SGD opt({p}, {.lr = 0.1});
  set_grad(p, {3.0, 4.0});
  opt.zero_grad(false);
  ASSERT_TRUE(p.grad().defined());
  EXPECT_EQ(values(p.grad()), (std::vector<double>{0.0, 0.0}));
  opt.zero_grad();
  EXPECT_FALSE(p.grad().defined());
}

TEST(Optim, StepWithClosureEnablesGradAndReturnsLoss) {
  Tensor p = leaf({3.0});
  SGD opt({p}, {.lr = 0.25});
  NoGradGuard outer;
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (p * p).sum();
    l.backward();
    return l;
  });
  EXPECT_EQ(loss.item<double>(), 9.0);
  EXPECT_DOUBLE_EQ(values(p)[0], 3.0 - 0.25 * 6.0);
}

TEST(Optim, ErrorsMatchTorch) {
  Tensor p = leaf({1.0});
  EXPECT_THROW(SGD({p}, {.lr = -1}), ValueError);
  EXPECT_THROW(SGD({p}, {.lr = 0.1, .momentum = -1}), ValueError);
  EXPECT_THROW(SGD({p}, {.lr = 0.1, .weight_decay = -1}), ValueError);
  EXPECT_THROW(SGD({p}, {.lr = 0.1, .nesterov = true}), ValueError);
  EXPECT_THROW(SGD({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.5, .nesterov = true}), ValueError);
  EXPECT_THROW(Adam({p}, {.eps = -1}), ValueError);
  EXPECT_THROW(Adam({p}, {.betas = {1.0, 0.9}}), ValueError);
  EXPECT_THROW(AdamW({p}, {.betas = {0.9, -0.5}}), ValueError);
  EXPECT_THROW(AdamW({p}, {.weight_decay = -0.1}), ValueError);
  EXPECT_THROW(SGD(std::vector<Tensor>{}, {.lr = 0.1}), ValueError);
  EXPECT_THROW(SGD(std::vector<ParamGroup>{{{p}, {}}, {{p}, {}}}, {.lr = 0.1}), ValueError);
  Tensor non_leaf = p * 2.0;
  EXPECT_THROW(SGD({non_leaf}, {.lr = 0.1}), ValueError);
  SGD opt({p}, {.lr = 0.1});
  EXPECT_THROW(opt.add_param_group({{p}, {}}), ValueError);
}

/// Runs `steps` SGD-momentum/Adam steps on p with grads derived from the step number.
void run_steps(Optimizer& opt, Tensor& p, int first, int steps) {
  for (int s = first; s < first + steps; ++s) {
    p.set_grad(tensor(std::vector<double>{std::sin(s + 1.0), std::cos(2.0 * s)}, TensorOptions(kFloat64)));
    opt.step();
  }
}

TEST(Optim, StateDictRoundTripThroughFlatteningResumesIdentically) {
  for (int kind = 0; kind < 2; ++kind) {
    auto make = [&](Tensor& p) -> std::unique_ptr<Optimizer> {
      if (kind == 0) return std::make_unique<SGD>(std::vector<Tensor>{p}, SGDOptions{.lr = 0.1, .momentum = 0.9});
      return std::make_unique<Adam>(std::vector<Tensor>{p}, AdamOptions{.lr = 0.05, .amsgrad = true});
    };
    Tensor a = leaf({0.5, -0.5});
    auto opt_a = make(a);
    run_steps(*opt_a, a, 0, 3);
    const OptimizerStateDict sd = opt_a->state_dict();
    ASSERT_EQ(sd.param_groups.size(), 1u);
    EXPECT_EQ(sd.param_groups[0].params, std::vector<int64_t>{0});
    const FlatOptimizerState flat = flatten_state_dict(sd);
    for (const auto& [name, t] : flat.tensors) EXPECT_EQ(name.rfind("state.0.", 0), 0u) << name;

    Tensor b = a.detach().clone().requires_grad_();
    auto opt_b = make(b);
    opt_b->param_groups()[0].options["lr"] = 123.0;  // overwritten by the load
    opt_b->load_state_dict(unflatten_state_dict(flat.tensors, flat.json));
    EXPECT_EQ(option_number(opt_b->param_groups()[0].options, "lr", "t"), kind == 0 ? 0.1 : 0.05);
    run_steps(*opt_a, a, 3, 4);
    run_steps(*opt_b, b, 3, 4);
    EXPECT_EQ(values(a), values(b));
  }
}

TEST(Optim, FlatStateKeepsOptionTypes) {
  Tensor p = leaf({1.0});
  Adam opt({p}, {.betas = {0.5, 0.75}});
  opt.param_groups()[0].options["name"] = std::string("backbone");
  opt.param_groups()[0].options["tag"] = std::monostate{};
  opt.param_groups()[0].options["epochs"] = int64_t{3};
  const FlatOptimizerState flat = flatten_state_dict(opt.state_dict());
  const OptimizerStateDict back = unflatten_state_dict(flat.tensors, flat.json);
  EXPECT_EQ(back.param_groups[0].options, opt.param_groups()[0].options);
  EXPECT_THROW(unflatten_state_dict({}, "{not json"), ValueError);
  EXPECT_THROW(unflatten_state_dict({}, "{}"), ValueError);
  EXPECT_THROW(unflatten_state_dict({{"state.x.exp_avg", T({1.0})}}, flat.json), ValueError);
  EXPECT_THROW(unflatten_state_dict({{"exp_avg", T({1.0})}}, flat.json), ValueError);
}

TEST(Optim, LoadStateDictErrorsAndCast) {
  Tensor p = leaf({1.0}), q = leaf({2.0});
  SGD one({p}, {.lr = 0.1, .momentum = 0.9});
  SGD two(std::vector<ParamGroup>{{{p.detach().clone().requires_grad_()}, {}}, {{q}, {}}}, {.lr = 0.1});
  EXPECT_THROW(one.load_state_dict(two.state_dict()), ValueError);
  SGD wide({p.detach().clone().requires_grad_(), q.detach().clone().requires_grad_()}, {.lr = 0.1});
  EXPECT_THROW(one.load_state_dict(wide.state_dict()), ValueError);
  // A float64 buffer loaded into a float32 param's state is cast (torch casts floating state).
  Tensor f = T({1.0, 2.0}).requires_grad_();
  SGD opt({f}, {.lr = 0.1, .momentum = 0.9});
  OptimizerStateDict sd = opt.state_dict();
  sd.state[0]["momentum_buffer"] = T({0.5, 0.25}, kFloat64);
  opt.load_state_dict(sd);
  EXPECT_EQ(opt.state(f).at("momentum_buffer").dtype(), kFloat32);
}

TEST(Optim, LoadStateDictRejectsMalformedState) {
  Tensor p = leaf({1.0, 2.0});
  Adam adam({p}, {.lr = 0.1});
  set_grad(p, {0.5, -0.5});
  adam.step();
  OptimizerStateDict good = adam.state_dict();
  OptimizerStateDict no_step = good;
  no_step.state[0].erase("step");
  EXPECT_THROW(adam.load_state_dict(no_step), ValueError);  // not a later failure inside step()
  OptimizerStateDict bad_shape = good;
  bad_shape.state[0]["exp_avg"] = T({0.0, 0.0, 0.0}, kFloat64);
  EXPECT_THROW(adam.load_state_dict(bad_shape), ValueError);
  SGD sgd({p}, {.lr = 0.1, .momentum = 0.9});
  OptimizerStateDict wide_buffer;
  wide_buffer.state[0]["momentum_buffer"] = T({0.0}, kFloat64);
  wide_buffer.param_groups = sgd.state_dict().param_groups;
  EXPECT_THROW(sgd.load_state_dict(wide_buffer), ValueError);
  adam.load_state_dict(good);
  adam.step();
  EXPECT_EQ(adam.state(p).at("step").item<double>(), 2.0);
}

// ---- LR schedulers ----

SGD make_sgd(Tensor& p, double lr) { return SGD({p}, {.lr = lr, .momentum = 0.9}); }

TEST(LRScheduler, StepLRAndMultiStepLRSequences) {
  Tensor p = leaf({1.0});
  SGD opt = make_sgd(p, 1.0);
  StepLR s(opt, 3, 0.5);
  std::vector<double> got = {s.get_last_lr()[0]};
  for (int e = 1; e < 10; ++e) {
    s.step();
    got.push_back(s.get_last_lr()[0]);
  }
  EXPECT_EQ(got, (std::vector<double>{1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125}));
  EXPECT_EQ(option_number(opt.param_groups()[0].options, "lr", "t"), 0.125);
  EXPECT_EQ(option_number(opt.param_groups()[0].options, "initial_lr", "t"), 1.0);

  Tensor q = leaf({1.0});
  SGD opt2 = make_sgd(q, 1.0);
  MultiStepLR ms(opt2, {4, 2, 4}, 0.1);
  std::vector<double> lrs;
  for (int e = 1; e <= 5; ++e) {
    ms.step();
    lrs.push_back(ms.get_last_lr()[0]);
  }
  EXPECT_DOUBLE_EQ(lrs[0], 1.0);
  EXPECT_DOUBLE_EQ(lrs[1], 0.1);
  EXPECT_DOUBLE_EQ(lrs[3], 0.1 * 0.01);  // milestone 4 listed twice: gamma^2
  EXPECT_DOUBLE_EQ(lrs[4], 0.001);
}

TEST(LRScheduler, CosineRecursiveFormFollowsClosedForm) {
  Tensor p = leaf({1.0});
  SGD opt = make_sgd(p, 0.2);
  const double eta_min = 0.01;
  const int64_t T_max = 7;
  CosineAnnealingLR s(opt, T_max, eta_min);
  for (int64_t e = 1; e <= 20; ++e) {
    s.step();
    // The recursive form (which also follows external lr changes) equals the closed form, past
    // T_max too (the cosine climbs back), as in torch.
    const double closed = eta_min + (0.2 - eta_min) * (1 + std::cos(std::numbers::pi * e / T_max)) / 2;
    EXPECT_NEAR(s.get_last_lr()[0], closed, 1e-12) << e;
  }
}

TEST(LRScheduler, SequentialWarmupThenCosine) {
  Tensor p = leaf({1.0});
  SGD opt = make_sgd(p, 0.1);
  auto warm = std::make_shared<LinearLR>(opt, 0.1, 1.0, 5);
  auto cos = std::make_shared<CosineAnnealingLR>(opt, 20, 0.0);
  SequentialLR s(opt, {warm, cos}, {5});
  std::vector<double> got = {s.get_last_lr()[0]};
  for (int e = 1; e < 25; ++e) {
    s.step();
    got.push_back(s.get_last_lr()[0]);
  }
  for (int e = 0; e < 25; ++e) {
    const double expect = e < 5 ? 0.1 * (0.1 + 0.9 * e / 5.0)
                                : 0.1 * (1 + std::cos(std::numbers::pi * (e - 5) / 20.0)) / 2;
    EXPECT_NEAR(got[e], expect, 1e-12) << e;
  }
  EXPECT_THROW(SequentialLR(opt, {warm, cos}, {}), ValueError);
}

TEST(LRScheduler, LambdaLinearConstantExponential) {
  Tensor p = leaf({1.0});
  SGD opt(std::vector<ParamGroup>{{{p}, {}}, {{leaf({2.0})}, {{"lr", 2.0}}}}, {.lr = 1.0});
  LambdaLR s(opt, [](int64_t e) { return 1.0 / (e + 1); });
  s.step();
  s.step();
  EXPECT_EQ(s.get_last_lr(), (std::vector<double>{1.0 / 3, 2.0 / 3}));
  EXPECT_THROW(LambdaLR(opt, std::vector<LambdaLR::Lambda>{[](int64_t) { return 1.0; }}), ValueError);
  EXPECT_THROW(LinearLR(opt, 0.0), ValueError);
  EXPECT_THROW(LinearLR(opt, 0.5, 1.5), ValueError);
  EXPECT_THROW(ConstantLR(opt, 1.5), ValueError);
}

TEST(LRScheduler, StateDictRoundTrip) {
  Tensor p = leaf({1.0}), q = leaf({1.0});
  SGD a = make_sgd(p, 0.1), b = make_sgd(q, 0.1);
  CosineAnnealingLR sa(a, 10, 0.001);
  for (int i = 0; i < 4; ++i) sa.step();
  CosineAnnealingLR sb(b, 3, 0.5);
  sb.load_state_dict(sa.state_dict());
  b.param_groups()[0].options["lr"] = a.param_groups()[0].options["lr"];
  EXPECT_EQ(sb.last_epoch(), 4);
  for (int i = 0; i < 8; ++i) {
    sa.step();
    sb.step();
    EXPECT_EQ(sa.get_last_lr(), sb.get_last_lr()) << i;
  }
  Tensor r = leaf({1.0});
  SGD c = make_sgd(r, 0.1);
  EXPECT_THROW(StepLR(c, 2, 0.1, /*last_epoch=*/3), ValueError) << "resuming needs initial_lr";
}

// ---- clipping ----

TEST(ClipGrad, NormTwoAndInfMatchHandComputedValues) {
  Tensor p = leaf({0.0, 0.0}), q = leaf({0.0}), none = leaf({1.0});
  set_grad(p, {3.0, 4.0});
  set_grad(q, {-12.0});
  Tensor total = nn::utils::clip_grad_norm_({p, q, none}, 6.5);
  EXPECT_DOUBLE_EQ(total.item<double>(), 13.0);
  const double c = 6.5 / (13.0 + 1e-6);
  EXPECT_TRUE(close(p.grad(), T({3.0 * c, 4.0 * c}, kFloat64), 1e-15));
  EXPECT_TRUE(close(q.grad(), T({-12.0 * c}, kFloat64), 1e-15));

  set_grad(p, {3.0, 4.0});
  set_grad(q, {-12.0});
  EXPECT_DOUBLE_EQ(nn::utils::clip_grad_norm_({p, q}, 100.0, INFINITY).item<double>(), 12.0);
  EXPECT_EQ(values(q.grad()), std::vector<double>{-12.0});  // coefficient clamped to 1
  EXPECT_DOUBLE_EQ(nn::utils::clip_grad_norm_({p, q}, 100.0, 1.0).item<double>(), 19.0);
  EXPECT_EQ(nn::utils::clip_grad_norm_({none}, 1.0).item<double>(), 0.0);

  set_grad(q, {NAN});
  EXPECT_THROW(nn::utils::clip_grad_norm_({p, q}, 1.0, 2.0, true), Error);
}

TEST(ClipGrad, Value) {
  Tensor p = leaf({0.0, 0.0, 0.0});
  set_grad(p, {-3.0, 0.5, 2.0});
  nn::utils::clip_grad_value_({p}, 1.0);
  EXPECT_EQ(values(p.grad()), (std::vector<double>{-1.0, 0.5, 1.0}));
}

// ---- ModelEMA ----

struct Tiny : nn::Module {
  Tiny() : Module("Tiny") {
    register_parameter("w", T({1.0, 2.0}, kFloat64));
    register_buffer("count", I({0}));
  }
};

TEST(ModelEMA, UpdatesFollowUltralyticsFormula) {
  Tiny model;
  ModelEMA ema(model, 0.9, 2.0);
  std::vector<double> avg = {1.0, 2.0};
  for (int n = 1; n <= 4; ++n) {
    {
      NoGradGuard g;
      model.parameter("w").add_(1.0);
      model.buffer("count").add_(1);
    }
    ema.update(model);
    const double d = 0.9 * (1 - std::exp(-n / 2.0));
    EXPECT_DOUBLE_EQ(ema.decay_at(n), d);
    const auto w = values(model.parameter("w"));
    for (int i = 0; i < 2; ++i) avg[i] = d * avg[i] + (1 - d) * w[i];
  }
  EXPECT_EQ(ema.updates(), 4);
  ASSERT_EQ(ema.state_dict().size(), 2u);
  EXPECT_EQ(ema.state_dict()[0].first, "w");
  EXPECT_TRUE(close(ema.state_dict()[0].second, tensor(avg, TensorOptions(kFloat64)), 1e-14));
  EXPECT_EQ(ivalues(ema.state_dict()[1].second), std::vector<int64_t>{4});  // integer buffer copied

  Tiny other;
  ema.copy_to(other);
  EXPECT_TRUE(close(other.parameter("w"), tensor(avg, TensorOptions(kFloat64)), 1e-14));
  EXPECT_FALSE(ema.state_dict()[0].second.requires_grad());
  EXPECT_THROW(ema.update(nn::StateDict{{"w", T({1.0}, kFloat64)}}), ValueError);
  EXPECT_THROW(ModelEMA(model, 1.5), ValueError);
}

}  // namespace
}  // namespace adept::testing
