// Mixed precision: autocast's per-op dtypes (ops/autocast.h) on the CPU (bfloat16) and on Vulkan (float16),
// gradients through the casts, and GradScaler (optim/grad_scaler.h): scaling, unscaling, skipped steps, the
// scale's backoff and growth, its errors and state_dict, the Vulkan multi-tensor kernel against the CPU path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "adept/adept.h"
#include "test_util.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif

using namespace adept;
using adept::testing::T;

namespace {

// Each check runs on the CPU (Autocast.*, GradScaler.*) and on Vulkan (*Vulkan.*: skipped without a device, and
// left out of the sanitizer run, where the Vulkan driver's own allocations read as leaks).
bool vulkan_present() {
#ifdef ADEPT_WITH_VULKAN
  return vulkan_is_available();
#else
  return false;
#endif
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return amax(abs(a.detach().cpu().to(kFloat64) - b.detach().cpu().to(kFloat64))).item<double>();
}

}  // namespace

static void check_policy(const Device& d) {
  {
    SCOPED_TRACE(d.str());
    const Dtype low = d.is_cpu() ? kBFloat16 : kFloat16;
    const TensorOptions f32 = TensorOptions(kFloat32).set_device(d);
    manual_seed(0);
    const Tensor a = randn({4, 8}, f32), b = randn({8, 3}, f32), w = randn({5, 2, 3, 3}, f32),
                 x = randn({1, 2, 6, 6}, f32);
    EXPECT_FALSE(is_autocast_enabled(d.type));
    {
      AutocastGuard ac(d.type);
      EXPECT_TRUE(is_autocast_enabled(d.type));
      EXPECT_EQ(get_autocast_dtype(d.type), low);
      EXPECT_EQ(matmul(a, b).dtype(), low);
      EXPECT_EQ(mm(a, b).dtype(), low);
      EXPECT_EQ(nn::functional::linear(a, b.t()).dtype(), low);
      EXPECT_EQ(conv2d(x, w, Tensor(), 1, 1).dtype(), low);
      const Tensor h = a.to(low);
      // PyTorch's CUDA list runs these in float32 (Vulkan here); its CPU list leaves them in bfloat16.
      const Dtype gpu_f32 = d.is_cpu() ? low : kFloat32;
      for (const Tensor& y : {softmax(h, 1), log_softmax(h, 1), sum(h), exp(h), log(abs(h) + 1), pow(h, 2.0), norm(h),
                              layer_norm(h, {8}), cumsum(h, 1)})
        EXPECT_EQ(y.dtype(), gpu_f32);
      EXPECT_EQ(sum(h, {}, false, kFloat16).dtype(), kFloat16);  // an explicit dtype wins
      EXPECT_EQ(softmax(h, 1, kFloat16).dtype(), kFloat16);
      EXPECT_EQ(mean(h).dtype(), low);  // not in a list: the input's dtype
      EXPECT_EQ(var(h).dtype(), low);
      EXPECT_EQ((h + 1).dtype(), low);
      EXPECT_EQ(relu(h).dtype(), low);
      EXPECT_EQ(nn::functional::elu(h).dtype(), low);
      EXPECT_EQ(nn::functional::mish(h).dtype(), low);
      const Tensor a64 = a.to(kFloat64);
      EXPECT_EQ(matmul(a64, a64.t()).dtype(), kFloat64);  // float64 is never cast
      // Both lists: the losses and prod in float32; binary_cross_entropy refused on the GPU (CUDA's rule),
      // run in float32 on the CPU.
      EXPECT_EQ(nn::functional::mse_loss(h, h).dtype(), kFloat32);
      EXPECT_EQ(prod(h).dtype(), kFloat32);
      const Tensor s0 = h.cpu().reshape({-1}).select(0, 0);  // a 0-d CPU tensor: cast by a CPU region only
      EXPECT_EQ(nn::functional::mse_loss(s0, s0).dtype(), d.is_cpu() ? kFloat32 : low);
      if (d.is_cpu()) {
        EXPECT_EQ(nn::functional::binary_cross_entropy(sigmoid(h), zeros_like(h)).dtype(), kFloat32);
      } else {
        EXPECT_THROW(nn::functional::binary_cross_entropy(sigmoid(h), zeros_like(h)), Error);
      }
      // Training-mode batch norm keeps the input's dtype with float32 parameters.
      const Tensor xb = x.to(low), ones_c = ones({2}, f32), zeros_c = zeros({2}, f32);
      EXPECT_EQ(batch_norm(xb, zeros_c.clone(), ones_c.clone(), ones_c, zeros_c, true, 0.1, 1e-5).dtype(), low);
      {
        AutocastGuard off(d.type, std::nullopt, false);  // nested and disabled
        EXPECT_EQ(matmul(a, b).dtype(), kFloat32);
      }
      EXPECT_EQ(matmul(a, b).dtype(), low);  // restored
    }
    EXPECT_EQ(matmul(a, b).dtype(), kFloat32);
    // A region for another device type leaves these tensors alone.
    {
      AutocastGuard other(d.is_cpu() ? DeviceType::Vulkan : DeviceType::CPU);
      EXPECT_EQ(matmul(a, b).dtype(), kFloat32);
    }
    // Operands on two devices are not cast: the op reports the devices, not a dtype mismatch.
    if (!d.is_cpu()) {
      AutocastGuard ac(d.type);
      EXPECT_THROW(mm(a, randn({8, 3})), DeviceError);
    }
  }
  EXPECT_THROW(AutocastGuard(DeviceType::CPU, kFloat32), DtypeError);
}

// The low-precision forward is the float32 one up to rounding; gradients arrive in the parameters' float32 and
// match the float32 gradients to low-precision tolerance; backward ran without autocast.
static void check_gradients(const Device& d) {
  {
    SCOPED_TRACE(d.str());
    const TensorOptions f32 = TensorOptions(kFloat32).set_device(d);
    manual_seed(1);
    const Tensor x = randn({2, 3, 8, 8}, f32);
    Tensor w = (randn({4, 3, 3, 3}, f32) * 0.3).detach().requires_grad_(true);
    Tensor v = (randn({4 * 16, 5}, f32) * 0.1).detach().requires_grad_(true);
    auto run = [&](bool amp) {
      std::optional<AutocastGuard> ac;
      if (amp) ac.emplace(d.type, kFloat16);
      Tensor h = silu(conv2d(x, w, Tensor(), 2, 1));
      Tensor logits = matmul(h.reshape({2, -1}), v);
      Tensor loss = nn::functional::cross_entropy(logits, tensor(std::vector<int64_t>{1, 3}).to(d));
      EXPECT_EQ(loss.dtype(), kFloat32);
      ac.reset();
      loss.backward();
      Tensor gw = w.grad().clone(), gv = v.grad().clone();
      w.set_grad(Tensor());
      v.set_grad(Tensor());
      return std::tuple{loss.detach(), gw, gv};
    };
    const auto [l32, gw32, gv32] = run(false);
    const auto [l16, gw16, gv16] = run(true);
    EXPECT_EQ(gw16.dtype(), kFloat32);
    EXPECT_EQ(gv16.dtype(), kFloat32);
    EXPECT_LT(max_abs_diff(l16, l32), 2e-2 * std::abs(l32.item<double>()));
    EXPECT_LT(max_abs_diff(gw16, gw32), 2e-2 * amax(abs(gw32)).item<double>());
    EXPECT_LT(max_abs_diff(gv16, gv32), 2e-2 * amax(abs(gv32)).item<double>());
    EXPECT_GT(max_abs_diff(gv16, gv32), 0.0);  // the float16 path really ran
  }
}

namespace {

// A parameter with gradient `g` (moved to `d`) and an SGD over it.
struct OneParam {
  Tensor p;
  std::unique_ptr<optim::SGD> opt;
  OneParam(const Tensor& init, const Tensor& g, const Device& d) {
    p = init.to(d).detach().requires_grad_(true);
    p.set_grad(g.to(d));
    opt = std::make_unique<optim::SGD>(std::vector<Tensor>{p}, optim::SGDOptions{0.5});
  }
};

}  // namespace

static void check_scaler_cycle(const Device& d) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  {
    SCOPED_TRACE(d.str());
    optim::GradScalerOptions o;
    o.init_scale = 8.0;
    o.growth_interval = 2;
    optim::GradScaler s(o);
    EXPECT_EQ(s.get_scale(), 8.0);
    EXPECT_TRUE(equal(s.scale(T({1.5}).to(d)).cpu(), T({12.0})));
    // Finite: unscaled gradient 16 / 8 = 2, step p = 1 - 0.5 * 2 = 0.
    OneParam a(T({1.0, 2.0}), T({16.0, 8.0}), d);
    EXPECT_TRUE(s.step(*a.opt));
    EXPECT_EQ(adept::testing::values(a.p.grad()), (std::vector<double>{2.0, 1.0}));
    EXPECT_EQ(adept::testing::values(a.p.detach()), (std::vector<double>{0.0, 1.5}));
    s.update();
    EXPECT_EQ(s.get_scale(), 8.0);
    EXPECT_EQ(s.get_growth_tracker(), 1);
    // Second finite step: growth_interval reached, the scale doubles.
    OneParam b(T({1.0}), T({8.0}), d);
    s.unscale_(*b.opt);
    EXPECT_THROW(s.unscale_(*b.opt), Error);  // twice before update
    EXPECT_TRUE(s.step(*b.opt));
    EXPECT_THROW(s.step(*b.opt), Error);      // twice before update
    EXPECT_THROW(s.unscale_(*b.opt), Error);  // after step
    s.update();
    EXPECT_EQ(s.get_scale(), 16.0);
    EXPECT_EQ(s.get_growth_tracker(), 0);
    // inf or NaN anywhere: no step, the scale halves, the tracker restarts.
    for (double bad : {inf, -inf, nan}) {
      OneParam c(T({1.0, 1.0, 1.0}), T({4.0, bad, 2.0}), d);
      const double before = s.get_scale();
      EXPECT_FALSE(s.step(*c.opt));
      EXPECT_EQ(adept::testing::values(c.p.detach()), (std::vector<double>{1.0, 1.0, 1.0}));
      s.update();
      EXPECT_EQ(s.get_scale(), before / 2);
      EXPECT_EQ(s.get_growth_tracker(), 0);
    }
    EXPECT_THROW(s.update(), Error);  // nothing recorded since the last update
    s.update(3.0);
    EXPECT_EQ(s.get_scale(), 3.0);
    // float16 gradients are refused.
    OneParam h(T({1.0}, kFloat16), T({1.0}, kFloat16), d);
    EXPECT_THROW(s.unscale_(*h.opt), ValueError);
  }
}

// The Vulkan kernel (many contiguous gradients, one flag) and the CPU path agree; a non-contiguous gradient takes
// the per-tensor path on either device.
TEST(GradScalerVulkan, UnscaleKernelMatchesTheCpu) {
#ifdef ADEPT_WITH_VULKAN
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  const Device vk("vulkan");
  for (bool with_inf : {false, true}) {
    manual_seed(5);
    std::vector<Tensor> cpu_p, vk_p;
    for (int i = 0; i < 70; ++i) {  // > 64: two dispatches
      Tensor g = randn({1 + 37 * (i % 5)}) * 1024.0;
      if (with_inf && i == 66) g.index_put_({tensor(std::vector<int64_t>{0})}, T({std::nan("")}));
      Tensor p = randn({g.numel()});
      Tensor a = p.clone().requires_grad_(true), b = p.to(vk).detach().requires_grad_(true);
      a.set_grad(g.clone());
      b.set_grad(g.to(vk));
      cpu_p.push_back(a);
      vk_p.push_back(b);
    }
    Tensor strided = randn({4, 6}).t();  // non-contiguous gradient
    Tensor sp = zeros({6, 4}).requires_grad_(true), sv = zeros({6, 4}).to(vk).requires_grad_(true);
    sp.set_grad(strided.clone().t().contiguous().t());
    sv.set_grad(strided.to(vk));
    cpu_p.push_back(sp);
    vk_p.push_back(sv);
    optim::SGD oc(cpu_p, optim::SGDOptions{0.1}), ov(vk_p, optim::SGDOptions{0.1});
    optim::GradScaler sc, sv_scaler;
    EXPECT_EQ(sc.step(oc), !with_inf);
    EXPECT_EQ(sv_scaler.step(ov), !with_inf);
    for (size_t i = 0; i < cpu_p.size(); ++i) {
      const Tensor gc = cpu_p[i].grad(), gv = vk_p[i].grad().cpu();
      EXPECT_TRUE(equal(isnan(gc), isnan(gv))) << i;
      EXPECT_TRUE(equal(where(isnan(gc), zeros({}), gc), where(isnan(gv), zeros({}), gv))) << i;
      EXPECT_TRUE(equal(cpu_p[i].detach(), vk_p[i].detach().cpu())) << i;
    }
    sc.update();
    sv_scaler.update();
    EXPECT_EQ(sc.get_scale(), sv_scaler.get_scale());
  }
#else
  GTEST_SKIP() << "built without Vulkan";
#endif
}

TEST(GradScaler, DisabledStateDictAndOptionErrors) {
  optim::GradScalerOptions off;
  off.enabled = false;
  optim::GradScaler d(off);
  const Tensor loss = T({2.0});
  EXPECT_TRUE(d.scale(loss).is_same(loss));
  EXPECT_EQ(d.get_scale(), 1.0);
  EXPECT_TRUE(d.state_dict().empty());
  OneParam a(T({1.0}), T({2.0}), kCPU);
  EXPECT_TRUE(d.step(*a.opt));  // plain optimizer.step()
  EXPECT_EQ(adept::testing::values(a.p.detach()), (std::vector<double>{0.0}));
  d.update();  // no-op

  optim::GradScalerOptions o;
  o.init_scale = 4.0;
  optim::GradScaler s(o);
  OneParam b(T({1.0}), T({1.0}), kCPU);
  s.step(*b.opt);
  s.update();
  optim::GradScaler t;
  t.load_state_dict(s.state_dict());
  EXPECT_EQ(t.get_scale(), 4.0);
  EXPECT_EQ(t.get_growth_tracker(), 1);
  EXPECT_THROW(t.load_state_dict({}), Error);
  optim::GradScalerOptions bad;
  bad.growth_factor = 1.0;
  EXPECT_THROW(optim::GradScaler{bad}, ValueError);
  bad = {};
  bad.backoff_factor = 1.0;
  EXPECT_THROW(optim::GradScaler{bad}, ValueError);
  bad = {};
  bad.growth_interval = 0;
  EXPECT_THROW(optim::GradScaler{bad}, ValueError);
}

TEST(Autocast, OpDtypesFollowThePolicyOnTheCpu) { check_policy(kCPU); }
TEST(AutocastVulkan, OpDtypesFollowThePolicy) {
  if (!vulkan_present()) GTEST_SKIP() << "no Vulkan device";
  check_policy(Device("vulkan"));
}
TEST(Autocast, GradientsReachFloat32LeavesOnTheCpu) { check_gradients(kCPU); }
TEST(AutocastVulkan, GradientsReachFloat32Leaves) {
  if (!vulkan_present()) GTEST_SKIP() << "no Vulkan device";
  check_gradients(Device("vulkan"));
}
TEST(GradScaler, ScalesUnscalesSkipsAndAdaptsTheScaleOnTheCpu) { check_scaler_cycle(kCPU); }
TEST(GradScalerVulkan, ScalesUnscalesSkipsAndAdaptsTheScale) {
  if (!vulkan_present()) GTEST_SKIP() << "no Vulkan device";
  check_scaler_cycle(Device("vulkan"));
}
