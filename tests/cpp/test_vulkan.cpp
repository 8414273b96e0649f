// Vulkan backend vs the CPU reference: transfers, elementwise ops with broadcasting and strided
// views, reductions, matmul, softmax, autograd through Vulkan kernels, conv kernels (transposed, the
// fused SiLU epilogue), memory statistics and errors. Skipped when no Vulkan device is present (lavapipe in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <regex>

#include "adept/adept.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#include "kernels/conv.h"
#endif

using namespace adept;

#ifdef ADEPT_WITH_VULKAN

namespace {

class Vulkan : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
    manual_seed(7);
  }
};

const Device kVk("vulkan");

void expect_close(const Tensor& got_vk, const Tensor& want, double tol = 1e-5) {
  ASSERT_TRUE(got_vk.device() == kVk) << got_vk.device().str();
  Tensor got = got_vk.cpu();
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  if (want.numel() == 0) return;
  Tensor g = got.to(kFloat64), w = want.to(kFloat64);
  bool ok = allclose(g, w, tol, tol, /*equal_nan=*/true);
  EXPECT_TRUE(ok) << "got\n" << got << "\nwant\n" << want;
}

// Inputs: contiguous, transposed, stepped slice, expanded; and a zero-size tensor.
std::vector<Tensor> variants(Dtype dt) {
  Tensor base = randn({6, 5}).to(dt);
  if (dt == kInt32 || dt == kInt64) base = randint(-5, 6, {6, 5}).to(dt);
  if (dt == kBool) base = randint(0, 2, {6, 5}).to(kBool);
  return {base, base.t(), base.slice(0, 0, 6, 2), base.select(0, 1).unsqueeze(0).expand({4, 5}),
          base.narrow(0, 0, 0)};
}

}  // namespace

TEST_F(Vulkan, DeviceListingHasLimits) {
  auto devs = vulkan_devices();
  ASSERT_FALSE(devs.empty());
  EXPECT_GT(devs[0].subgroup_size, 0u);
  EXPECT_GE(devs[0].max_push_constants, 128u);
  EXPECT_FALSE(devs[0].str().empty());
  EXPECT_TRUE(std::regex_match(devs[0].uuid, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << devs[0].uuid;
}

TEST_F(Vulkan, LocalRanksTakeTheDevicesInUuidOrderRoundRobin) {
  auto devs = vulkan_devices();
  std::sort(devs.begin(), devs.end(), [](const auto& a, const auto& b) { return a.uuid < b.uuid; });
  for (int r = 0; r < 2 * static_cast<int>(devs.size()) + 1; ++r) {
    EXPECT_EQ(vulkan_device_for_local_rank(r), devs[r % devs.size()].index) << r;
  }
}

TEST_F(Vulkan, RoundTripAllDtypes) {
  for (Dtype dt : {kFloat32, kFloat16, kInt32, kInt64, kBool}) {
    for (const Tensor& x : variants(dt)) {
      Tensor v = x.to(kVk);
      EXPECT_TRUE(v.device() == kVk);
      EXPECT_TRUE(equal(v.cpu(), x)) << dtype_name(dt);
    }
  }
}

TEST_F(Vulkan, DtypeConversionsOnDevice) {
  Tensor x = randn({7, 3}) * 10;
  for (Dtype a : {kFloat32, kFloat16, kInt32, kInt64, kBool}) {
    for (Dtype b : {kFloat32, kFloat16, kInt32, kInt64, kBool}) {
      Tensor src = x.to(a);
      expect_close(src.to(kVk).to(b), src.to(b), 0);
    }
  }
}

TEST_F(Vulkan, FillAndCreation) {
  expect_close(full({3, 4}, 2.5, TensorOptions(kFloat32).set_device(kVk)), full({3, 4}, 2.5));
  expect_close(full({5}, -3, TensorOptions(kInt64).set_device(kVk)), full({5}, -3, kInt64));
  expect_close(zeros({2, 0}, TensorOptions(kFloat16).set_device(kVk)), zeros({2, 0}, kFloat16));
  expect_close(ones({4}, TensorOptions(kBool).set_device(kVk)), ones({4}, kBool));
  // Random tensors are drawn on the host (same values as on the CPU for the same seed) and uploaded.
  manual_seed(3);
  Tensor r = randn({5, 3}, TensorOptions().set_device(kVk));
  manual_seed(3);
  expect_close(r, randn({5, 3}), 0);
  expect_close(arange(0, 10, 1, TensorOptions(kInt32).set_device(kVk)), arange(0, 10, 1, TensorOptions(kInt32)), 0);
}

TEST_F(Vulkan, BinaryOpsMatchCpuWithBroadcastAndStrides) {
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  struct Case { const char* name; Fn fn; bool ints; };
  std::vector<Case> cases = {
      {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }, true},
      {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }, true},
      {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, true},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }, false},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, true},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, true},
      {"eq", [](const Tensor& a, const Tensor& b) { return eq(a, b); }, true},
      {"lt", [](const Tensor& a, const Tensor& b) { return lt(a, b); }, true},
      {"ge", [](const Tensor& a, const Tensor& b) { return ge(a, b); }, true},
  };
  for (Dtype dt : {kFloat32, kFloat16, kInt32}) {
    double tol = dt == kFloat16 ? 2e-3 : 1e-5;
    for (const auto& c : cases) {
      if (!c.ints && dt == kInt32) continue;
      for (const Tensor& a : variants(dt)) {
        Tensor b = (dt == kInt32 ? randint(1, 4, {a.size(-1)}) : rand({a.size(-1)}) + 0.5).to(dt);  // broadcast row
        SCOPED_TRACE(std::string(c.name) + " " + dtype_name(dt));
        expect_close(c.fn(a.to(kVk), b.to(kVk)), c.fn(a, b), tol);
      }
    }
  }
  Tensor m = randint(0, 2, {3, 4}).to(kBool), n = randint(0, 2, {4}).to(kBool);
  expect_close(logical_and(m.to(kVk), n.to(kVk)), logical_and(m, n), 0);
  expect_close(add(m.to(kVk), n.to(kVk)), add(m, n), 0);
}

TEST_F(Vulkan, ScalarOperandsAndZeroDimCpuTensors) {
  Tensor x = randn({4, 3});
  expect_close(x.to(kVk) * 3.0 + 1, x * 3.0 + 1);
  expect_close(x.to(kVk) * scalar_tensor(2.0), x * 2.0);  // 0-d CPU tensor joins a Vulkan op
  EXPECT_THROW(x.to(kVk) + randn({4, 3}), DeviceError);
}

TEST_F(Vulkan, UnaryOpsMatchCpu) {
  using Fn = Tensor (*)(const Tensor&);
  std::vector<std::pair<const char*, Fn>> fns = {
      {"relu", [](const Tensor& t) { return relu(t); }},   {"silu", [](const Tensor& t) { return silu(t); }},
      {"sigmoid", [](const Tensor& t) { return sigmoid(t); }}, {"exp", [](const Tensor& t) { return exp(t); }},
      {"neg", [](const Tensor& t) { return neg(t); }},     {"abs", [](const Tensor& t) { return abs(t); }},
      {"tanh", [](const Tensor& t) { return tanh(t); }},   {"sqrt_abs", [](const Tensor& t) { return sqrt(abs(t)); }},
      {"log_abs", [](const Tensor& t) { return log(abs(t) + 0.1); }},
      {"gelu", [](const Tensor& t) { return gelu(t); }},   {"isnan", [](const Tensor& t) { return isnan(t); }},
      {"clamp", [](const Tensor& t) { return clamp(t, Scalar(-0.5), Scalar(0.5)); }},
      {"pow", [](const Tensor& t) { return pow(t, 3.0); }},
  };
  for (Dtype dt : {kFloat32, kFloat16}) {
    for (const auto& [name, fn] : fns) {
      for (const Tensor& x : variants(dt)) {
        SCOPED_TRACE(std::string(name) + " " + dtype_name(dt));
        expect_close(fn(x.to(kVk)), fn(x), dt == kFloat16 ? 3e-3 : 2e-5);
      }
    }
  }
  Tensor i = randint(-5, 5, {9}).to(kInt32);
  expect_close(relu(i.to(kVk)), relu(i), 0);
  expect_close(neg(i.to(kVk)), neg(i), 0);
}

TEST_F(Vulkan, WhereBroadcast) {
  Tensor c = randint(0, 2, {3, 1}).to(kBool), a = randn({3, 4}), b = randn({4});
  expect_close(where(c.to(kVk), a.to(kVk), b.to(kVk)), where(c, a, b));
}

TEST_F(Vulkan, ReductionsOverAnyDims) {
  Tensor x = randn({4, 5, 6});
  for (const Tensor& v : {x, x.permute({2, 0, 1}), x.slice(1, 0, 5, 2)}) {
    for (Shape dims : {Shape{}, Shape{0}, Shape{-1}, Shape{0, 2}, Shape{1}}) {
      for (bool keep : {false, true}) {
        expect_close(sum(v.to(kVk), dims, keep), sum(v, dims, keep), 1e-4);
        expect_close(mean(v.to(kVk), dims, keep), mean(v, dims, keep), 1e-5);
        expect_close(amax(v.to(kVk), dims, keep), amax(v, dims, keep));
      }
    }
    auto [mv, mi] = max(v.to(kVk), 1);
    auto [cv, ci] = max(v, 1);
    expect_close(mv, cv);
    expect_close(mi, ci, 0);
  }
  Tensor big = randn({3, 5000});
  expect_close(sum(big.to(kVk), {1}), sum(big, {1}), 1e-3);
  expect_close(sum(zeros({0, 3}).to(kVk), {0}), sum(zeros({0, 3}), {0}));
  Tensor h = randn({8, 33}).to(kFloat16);
  expect_close(sum(h.to(kVk), {1}), sum(h, {1}), 2e-2);
  Tensor b = randint(0, 2, {5, 7}).to(kBool);
  expect_close(all(b.to(kVk), {1}), all(b, {1}), 0);
  expect_close(any(b.to(kVk), {0}), any(b, {0}), 0);
}

TEST_F(Vulkan, FewOutputsOverManyElementsSplitIntoPartialsAndMatchTheCpu) {
  // 1 to 12 outputs over >= 16384 elements each: one dispatch of partials, then a fold of the partials.
  Tensor x = randn({6, 400, 96});
  const Tensor on_vk = x.to(kVk);
  vulkan_profiler_start();
  Tensor total = sum(on_vk, {1, 2});
  const VulkanProfile p = vulkan_profiler_stop();
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].op, "reduce");
  EXPECT_EQ(p.rows[0].count, 2u);  // partials, then their fold
  expect_close(total, sum(x, {1, 2}), 1e-3);
  for (const Tensor& v : {x, x.permute({2, 0, 1}), x.slice(2, 0, 96, 2)}) {
    for (Shape dims : {Shape{}, Shape{1, 2}, Shape{0, 1}}) {
      expect_close(sum(v.to(kVk), dims), sum(v, dims), 1e-3);
      expect_close(amax(v.to(kVk), dims), amax(v, dims));
      expect_close(amin(v.to(kVk), dims), amin(v, dims));
    }
  }
  expect_close(prod((x * 1e-3 + 1).to(kVk)), prod(x * 1e-3 + 1), 1e-4);
  Tensor with_nan = x.clone();
  with_nan.data_ptr<float>()[3 * 38400 + 50 * 96 + 7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(amax(with_nan.to(kVk)).item().to_double()));
  expect_close(amin(with_nan.to(kVk), {0, 2}), amin(with_nan, {0, 2}));
  Tensor d = randn({40000}, kFloat64);
  expect_close(sum(d.to(kVk)), sum(d), 1e-10);
  Tensor i = randint(-1000, 1000, {3, 30000});
  expect_close(sum(i.to(kVk), {1}), sum(i, {1}), 0);
  Tensor b = ones({70000}).to(kBool);
  b.data_ptr<bool>()[69999] = false;
  expect_close(all(b.to(kVk)), all(b), 0);
  expect_close(any(logical_not(b).to(kVk)), any(logical_not(b)), 0);
  auto [mv, mi] = max(x.reshape({6, -1}).to(kVk), 1);  // arg ops keep one workgroup per output
  auto [cv, ci] = max(x.reshape({6, -1}), 1);
  expect_close(mv, cv);
  expect_close(mi, ci, 0);
}

TEST_F(Vulkan, Float64ConvWithFewChannelsFitsSharedMemory) {
  // The flat 16x256 implicit-GEMM tile in float64 would need 34,944 bytes of shared memory (lavapipe has
  // 32 KiB): the validation run of these tests catches a tile that does not fit.
  if (!vulkan_devices().at(0).float64) GTEST_SKIP() << "no shaderFloat64";
  Tensor x = randn({1, 3, 8, 8}, kFloat64), w = randn({4, 3, 3, 3}, kFloat64);
  Tensor xv = x.to(kVk).requires_grad_(), wv = w.to(kVk).requires_grad_();
  Tensor xc = x.clone().requires_grad_(), wc = w.clone().requires_grad_();
  conv2d(xv, wv, {}, 1, 1).sum().backward();
  conv2d(xc, wc, {}, 1, 1).sum().backward();
  expect_close(xv.grad(), xc.grad(), 1e-10);
  expect_close(wv.grad(), wc.grad(), 1e-10);
  EXPECT_EQ(vulkan_validation_error_count(), 0u);
}

TEST_F(Vulkan, LargeReductionsAndLongMatmulsStayCorrect) {
  // Larger than one invocation may loop on llvmpipe: the kernels split the work.
  Tensor x = ones({6291456}).to(kVk);
  EXPECT_EQ(sum(x).item().to_double(), 6291456.0);
  Tensor r = randn({2, 3000000});
  expect_close(sum(r.to(kVk), {1}), sum(r, {1}), 1e-2);
  // Many outputs, short reductions: one invocation per output.
  Tensor m = randn({3, 5000});
  expect_close(sum(m.to(kVk), {0}), sum(m, {0}), 1e-5);
  expect_close(amax(m.to(kVk), {0}), amax(m, {0}));
  Tensor a = randn({2, 40000}), b = randn({40000, 3});
  expect_close(matmul(a.to(kVk), b.to(kVk)), matmul(a, b), 1e-2);
}

TEST_F(Vulkan, SoftmaxLastDim) {
  Tensor x = randn({5, 17}) * 4;
  expect_close(softmax(x.to(kVk), -1), softmax(x, -1), 1e-5);
  expect_close(log_softmax(x.to(kVk), -1), log_softmax(x, -1), 1e-5);
}

TEST_F(Vulkan, MatmulShapesAndTransposedOperands) {
  for (auto [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 1, 1}, {7, 5, 3}, {70, 33, 65}, {4, 0, 3}}) {
    Tensor a = randn({m, k}), b = randn({k, n});
    expect_close(matmul(a.to(kVk), b.to(kVk)), matmul(a, b), 1e-4);
    Tensor at = a.t().contiguous().to(kVk).t(), bt = b.t().contiguous().to(kVk).t();  // column-major views
    expect_close(matmul(at, bt), matmul(a, b), 1e-4);
  }
  Tensor a = randn({3, 9, 8}), b = randn({8, 4});
  expect_close(matmul(a.to(kVk), b.to(kVk)), matmul(a, b), 1e-4);
  Tensor bb = randn({3, 8, 4});
  expect_close(matmul(a.to(kVk), bb.to(kVk)), matmul(a, bb), 1e-4);
  Tensor h1 = randn({16, 24}).to(kFloat16), h2 = randn({24, 8}).to(kFloat16);
  expect_close(matmul(h1.to(kVk), h2.to(kVk)), matmul(h1, h2), 2e-2);
  // Shapes and layouts the cooperative-matrix path takes where the device has it (NVIDIA).
  Tensor c1 = randn({2, 80, 48}).to(kFloat16), c2 = randn({48, 144}).to(kFloat16);
  expect_close(matmul(c1.to(kVk), c2.to(kVk)).to(kFloat32), matmul(c1.to(kFloat32), c2.to(kFloat32)), 5e-2);
  Tensor ct = c2.t().contiguous().to(kVk).t();  // column-major B
  expect_close(matmul(c1.to(kVk), ct).to(kFloat32), matmul(c1.to(kFloat32), c2.to(kFloat32)), 5e-2);
}

TEST_F(Vulkan, AutogradThroughVulkanKernels) {
  Tensor x = randn({4, 6}), w = randn({6, 3}), bias = randn({3});
  auto run = [&](Device d) {
    Tensor xd = x.clone().to(d).requires_grad_(), wd = w.clone().to(d).requires_grad_();
    Tensor bd = bias.clone().to(d).requires_grad_();
    Tensor y = silu(matmul(xd, wd) + bd);
    Tensor loss = (sigmoid(y) * y).sum() + relu(xd).mean();
    loss.backward();
    return std::vector<Tensor>{loss.detach(), xd.grad(), wd.grad(), bd.grad()};
  };
  auto cpu = run(kCPU);
  auto vk = run(kVk);
  for (size_t i = 0; i < cpu.size(); ++i) expect_close(vk[i], cpu[i], 1e-4);
}

TEST_F(Vulkan, ConvTranspose2dMatchesTheCpu) {
  // conv_transpose2d runs the conv2d_backward_input family (implicit_gemm; depthwise for groups == C_out).
  Tensor x = randn({1, 2, 4, 4}), w = randn({2, 3, 3, 3}), wd = randn({2, 1, 3, 3});
  expect_close(conv_transpose2d(x.to(kVk), w.to(kVk)), conv_transpose2d(x, w), 1e-4);
  expect_close(conv_transpose2d(x.to(kVk), wd.to(kVk), {}, 2, 1, 1, 2), conv_transpose2d(x, wd, {}, 2, 1, 1, 2), 1e-4);
}

TEST_F(Vulkan, DepthwiseConvFusedSiluEpilogueMatchesTheCpu) {
  // The forward kernel's fused epilogue (ConvGeometry::silu, set by callers without autograd) is
  // silu(conv + bias); stride 2, padding 1, multiplier 2.
  ConvGeometry g{2, 3, 7, 6, 6, 3, 3, 4, 3, 2, 2, 1, 1, 1, 1, 3};
  g.silu = true;
  for (Dtype dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor x = randn({2, 3, 7, 6}).to(dt), w = randn({6, 1, 3, 3}).to(dt), b = randn({6}).to(dt);
    Tensor y = empty({2, 6, 4, 3}, TensorOptions(dt).set_device(kVk));
    conv2d_forward_kernel().get(kVk, "conv2d")(y, x.to(kVk), w.to(kVk), b.to(kVk), g);
    const Tensor want = silu(conv2d(x.to(kFloat64), w.to(kFloat64), b.to(kFloat64), 2, 1, 1, 3)).to(dt);
    expect_close(y, want, dt == kFloat16 ? 1e-2 : dt == kBFloat16 ? 5e-2 : 1e-5);
  }
}

// The conv2d forward kernels' fused SiLU epilogue (ConvGeometry::silu, no op sets it yet) against the CPU's,
// for each Vulkan algorithm that computes a 3x3 stride-1 convolution, float32 and bfloat16.
TEST_F(Vulkan, ConvForwardFusedSiluMatchesCpu) {
  ConvGeometry g{2, 4, 6, 7, 6, 3, 3, 6, 7, 1, 1, 1, 1, 1, 1, 2};
  g.silu = true;
  Tensor x = randn({2, 4, 6, 7}), w = randn({6, 2, 3, 3}), b = randn({6});
  Tensor want = zeros({2, 6, 6, 7});
  conv2d_forward_kernel().get(Device("cpu"), "conv2d")(want, x, w, b, g);
  for (const char* algo : {"implicit_gemm", "winograd", "winograd_f4"}) {
    setenv("ADEPT_CONV_ALGO", algo, 1);
    for (Dtype dt : {kFloat32, kBFloat16}) {
      Tensor y = zeros({2, 6, 6, 7}).to(dt).to(kVk);
      conv2d_forward_kernel().get(kVk, "conv2d")(y, x.to(dt).to(kVk), w.to(dt).to(kVk), b.to(dt).to(kVk), g);
      SCOPED_TRACE(algo);
      expect_close(y.to(kFloat32), want, dt == kFloat32 ? 1e-4 : 0.1);
    }
  }
  unsetenv("ADEPT_CONV_ALGO");
}

TEST_F(Vulkan, AllocatorReusesFreedMemoryAndReportsStats) {
  vulkan_synchronize();
  auto before = vulkan_memory_stats();
  for (int i = 0; i < 20; ++i) {
    Tensor t = zeros({1000 + i}, TensorOptions(kFloat32).set_device(kVk));
    vulkan_synchronize();
  }
  auto after = vulkan_memory_stats();
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_LE(after.reserved, before.reserved + (64u << 20));
  EXPECT_GE(after.peak, after.allocated);
  vulkan_empty_cache();
}

TEST_F(Vulkan, AMemoryCapRaisesOutOfMemoryNamingTheBytes) {
  vulkan_synchronize();
  vulkan_empty_cache();
  vulkan_set_per_process_memory_fraction(0.0);  // the smallest cap: nothing new can be reserved
  try {
    Tensor big = empty({16 << 20}, TensorOptions(kFloat32).set_device(kVk));
    vulkan_set_per_process_memory_fraction(1.0);
    FAIL() << "a 64 MiB tensor fit under a zero cap";
  } catch (const OutOfMemoryError& e) {
    vulkan_set_per_process_memory_fraction(1.0);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("tried to allocate 67108864 bytes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("reserved"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cap"), std::string::npos) << msg;
  }
  EXPECT_THROW(vulkan_set_per_process_memory_fraction(1.5), ValueError);
  Tensor ok = ones({1 << 20}, TensorOptions(kFloat32).set_device(kVk));  // the cap is gone
  EXPECT_EQ(ok.sum().item<float>(), static_cast<float>(1 << 20));
}

TEST_F(Vulkan, AWaitPastTheTimeoutIsADeviceErrorNamingTheOp) {
  Tensor a = randn({384, 384}).to(kVk);
  vulkan_synchronize();
  Tensor c = matmul(matmul(a, a), a);  // tens of milliseconds on lavapipe, far more than the timeout
  setenv("ADEPT_VK_TIMEOUT", "0.000001", 1);
  try {
    vulkan_synchronize();
    unsetenv("ADEPT_VK_TIMEOUT");
    GTEST_SKIP() << "the device finished within a microsecond";
  } catch (const DeviceError& e) {
    unsetenv("ADEPT_VK_TIMEOUT");
    EXPECT_NE(std::string(e.what()).find("matmul"), std::string::npos) << e.what();
  }
  vulkan_synchronize();  // the work completes; the stream is usable again
  EXPECT_TRUE(allclose(c.cpu(), matmul(matmul(a.cpu(), a.cpu()), a.cpu()), 1e-3, 1e-3));
}

TEST_F(Vulkan, ModelEMAOnTheDeviceMatchesTheCpu) {
  // Floating entries go through the multi-tensor kernel (two dtypes: two calls); the int64 entry is copied.
  nn::StateDict cpu_state = {{"w", randn({5, 3})}, {"h", randn({7}).to(kFloat16)}, {"n", tensor(std::vector<int64_t>{4})}};
  nn::StateDict vk_state;
  for (const auto& [name, t] : cpu_state) vk_state.emplace_back(name, t.to(kVk));
  optim::ModelEMA cpu_ema(cpu_state, 0.9, 2.0), vk_ema(vk_state, 0.9, 2.0);
  for (int step = 0; step < 3; ++step) {
    for (size_t i = 0; i < cpu_state.size(); ++i) {
      Tensor next = cpu_state[i].second.is_floating_point() ? randn(cpu_state[i].second.sizes()).to(cpu_state[i].second.dtype())
                                                            : cpu_state[i].second + 1;
      cpu_state[i].second = next;
      vk_state[i].second = next.to(kVk);
    }
    cpu_ema.update(cpu_state);
    vk_ema.update(vk_state);
  }
  for (size_t i = 0; i < cpu_state.size(); ++i) {
    const Tensor got = vk_ema.state_dict()[i].second.cpu(), want = cpu_ema.state_dict()[i].second;
    EXPECT_EQ(got.dtype(), want.dtype());
    EXPECT_TRUE(allclose(got.to(kFloat64), want.to(kFloat64), 1e-3, 1e-4)) << cpu_state[i].first;
  }
}

TEST_F(Vulkan, RandomFillsDrawTheCpuGeneratorsNumbersOnTheDevice) {
  // The device computes the same Philox stream as the CPU: a seed gives the same values on both.
  for (Dtype dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    manual_seed(11);
    Tensor cpu_n = randn({7, 33}, TensorOptions(dt)), cpu_u = rand({5, 9}, TensorOptions(dt));
    Tensor cpu_b = empty({300}, TensorOptions(dt));
    bernoulli_(cpu_b, 0.3);
    manual_seed(11);
    Tensor vk_n = randn({7, 33}, TensorOptions(dt).set_device(kVk)), vk_u = rand({5, 9}, TensorOptions(dt).set_device(kVk));
    Tensor vk_b = empty({300}, TensorOptions(dt).set_device(kVk));
    bernoulli_(vk_b, 0.3);
    const double tol = dt == kFloat64 ? 1e-12 : 0;  // float64: the device's log/cos may differ in the last bits
    EXPECT_TRUE(allclose(vk_n.cpu().to(kFloat64), cpu_n.to(kFloat64), tol, tol)) << dtype_name(dt);
    EXPECT_TRUE(equal(vk_u.cpu(), cpu_u)) << dtype_name(dt);
    EXPECT_TRUE(equal(vk_b.cpu(), cpu_b)) << dtype_name(dt);
  }
  // randint: exact int64 arithmetic on the device, any output dtype.
  for (Dtype dt : {kInt64, kInt32, kUInt8, kFloat32}) {
    manual_seed(5);
    Tensor c = randint(0, 200, {5, 70}, TensorOptions(dt));
    manual_seed(5);
    Tensor v = randint(0, 200, {5, 70}, TensorOptions(dt).set_device(kVk));
    EXPECT_TRUE(equal(v.cpu(), c)) << "randint " << dtype_name(dt);
  }
  manual_seed(9);
  Tensor wide = randint(-(int64_t{1} << 62), int64_t{1} << 62, {500});
  manual_seed(9);
  EXPECT_TRUE(equal(randint(-(int64_t{1} << 62), int64_t{1} << 62, {500}, TensorOptions(kInt64).set_device(kVk)).cpu(), wide));
  // A strided target gets the values in row-major order of its shape.
  manual_seed(3);
  Tensor cpu_t = empty({6, 4}).t();
  uniform_(cpu_t, -2, 5);
  manual_seed(3);
  Tensor vk_t = empty({6, 4}, TensorOptions(kFloat32).set_device(kVk)).t();
  uniform_(vk_t, -2, 5);
  EXPECT_TRUE(equal(vk_t.cpu(), cpu_t));
  // Statistics of a large device draw.
  Tensor big = randn({1 << 18}, TensorOptions(kFloat32).set_device(kVk)).cpu();
  EXPECT_NEAR(big.mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(adept::std(big).item<double>(), 1.0, 0.01);
  Tensor u = rand({1 << 18}, TensorOptions(kFloat16).set_device(kVk)).cpu().to(kFloat32);
  EXPECT_LT(u.max().item<float>(), 1.0f);
  EXPECT_GE(u.min().item<float>(), 0.0f);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.01);
}

TEST_F(Vulkan, TranscendentalsMatchTheCpuAtTheirHardArguments) {
  // Large arguments of sin/cos (Payne-Hanek reduction), values near 0 (series), IEEE special cases of
  // pow/atan2/remainder and signed zeros, float32 and float64, against the CPU's results.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto same_signs = [](const Tensor& a, const Tensor& b) {  // float64 CPU tensors; NaNs are not compared
    Tensor ac = a.contiguous(), bc = b.contiguous();
    for (int64_t i = 0; i < ac.numel(); ++i) {
      const double u = ac.data_ptr<double>()[i], v = bc.data_ptr<double>()[i];
      if (!std::isnan(u) && !std::isnan(v) && std::signbit(u) != std::signbit(v)) return false;
    }
    return true;
  };
  for (Dtype dt : {kFloat32, kFloat64}) {
    const double tol = dt == kFloat32 ? 2e-6 : 1e-13;
    auto check = [&](const char* what, const std::function<Tensor(const Tensor&)>& f, const std::vector<double>& v) {
      Tensor x = tensor(v, TensorOptions(dt));
      Tensor got = f(x.to(kVk)).cpu().to(kFloat64), want = f(x).to(kFloat64);
      EXPECT_TRUE(allclose(got, want, tol, 0, /*equal_nan=*/true)) << what << " " << dtype_name(dt) << "\n" << got << "\n" << want;
      EXPECT_TRUE(same_signs(got, want)) << what << " signs " << dtype_name(dt);
    };
    check("sin", [](const Tensor& x) { return sin(x); }, {-0.0, 1e-6, 3.0, 1e6, 1e10, 1e15, 1e20, -1e30});
    check("cos", [](const Tensor& x) { return cos(x); }, {-0.0, 1e-6, 3.0, 1e6, 1e10, 1e15, 1e20, -1e30});
    check("erf", [](const Tensor& x) { return erf(x); }, {-0.0, 1e-6, 1e-4, 0.3, 2.0, -3.0});
    check("tanh", [](const Tensor& x) { return tanh(x); }, {-0.0, 1e-6, 1e-3, 0.5, 3.0});
    check("atan", [](const Tensor& x) { return atan(x); }, {-0.0, 1e-6, 0.3, 5.0, -100.0, inf});
    check("expm1", [](const Tensor& x) { return expm1(x); }, {-0.0, 1e-8, 1e-5, 0.3, -2.0});
    check("log1p", [](const Tensor& x) { return log1p(x); }, {-0.0, 1e-15, 1e-10, 1e-4, 0.3, -0.7, 5.0});
    Tensor b = tensor(std::vector<double>{0, 0, -0.0, inf, 1, -1, -2, 2, 0.5}, TensorOptions(dt));
    Tensor e = tensor(std::vector<double>{-1, 0, -1, 0, nan, inf, 3, -2, -inf}, TensorOptions(dt));
    EXPECT_TRUE(allclose(pow(b.to(kVk), e.to(kVk)).cpu(), pow(b, e), 0, 0, true)) << "pow " << dtype_name(dt);
    Tensor y = tensor(std::vector<double>{0, -0.0, 0, -0.0, inf, -inf, inf, 1}, TensorOptions(dt));
    Tensor x = tensor(std::vector<double>{0, 0, -0.0, -0.0, inf, inf, -inf, 1}, TensorOptions(dt));
    Tensor got = atan2(y.to(kVk), x.to(kVk)).cpu(), want = atan2(y, x);
    EXPECT_TRUE(allclose(got, want, tol, 0) && same_signs(got.to(kFloat64), want.to(kFloat64))) << "atan2 " << dtype_name(dt);
    Tensor r = tensor(std::vector<double>{-1, 5}, TensorOptions(dt)), m = tensor(std::vector<double>{inf, -inf}, TensorOptions(dt));
    EXPECT_TRUE(equal(remainder(r.to(kVk), m.to(kVk)).cpu(), remainder(r, m))) << "remainder " << dtype_name(dt);
  }
}

TEST_F(Vulkan, NoValidationErrors) {
  // Meaningful under ADEPT_VK_VALIDATION=1 (the ctest entry vulkan_validation sets it).
  Tensor x = randn({32, 32}).to(kVk);
  Tensor y = softmax(matmul(x, x), -1).sum();
  (void)y.item();
  EXPECT_EQ(vulkan_validation_error_count(), 0u);
}

#endif  // ADEPT_WITH_VULKAN
