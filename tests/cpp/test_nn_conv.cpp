// conv2d / conv_transpose2d: every CPU algorithm (forced through ADEPT_CONV_ALGO) against the direct-loop
// reference on a grid of shapes, forward and all three gradients; float64 finite differences; errors.
#include <cstdlib>
#include <string>
#include <variant>

#include "adept/nn/functional/conv.h"
#include "adept/vulkan.h"
#include "gradcheck.h"
#include "test_util.h"

namespace adept::testing {
namespace {

namespace F = nn::functional;
using nn::IntPair;

// Sets ADEPT_CONV_ALGO for the scope (read by every conv call).
class AlgoEnv {
 public:
  explicit AlgoEnv(const std::string& algo) {
    if (const char* p = std::getenv("ADEPT_CONV_ALGO")) prev_ = p, had_ = true;
    setenv("ADEPT_CONV_ALGO", algo.c_str(), 1);
  }
  ~AlgoEnv() {
    if (had_) setenv("ADEPT_CONV_ALGO", prev_.c_str(), 1);
    else unsetenv("ADEPT_CONV_ALGO");
  }

 private:
  std::string prev_;
  bool had_ = false;
};

struct Case {
  int64_t N, C_in, H, W, C_out, kH, kW;
  IntPair stride, dilation;
  std::variant<IntPair, std::string> padding;
  int64_t groups;
  bool bias;
  std::string str() const {
    std::string p = std::holds_alternative<std::string>(padding)
                        ? std::get<std::string>(padding)
                        : fmt::format("{},{}", std::get<IntPair>(padding)[0], std::get<IntPair>(padding)[1]);
    return fmt::format("N{} C{}->{} {}x{} k{}x{} s{},{} p{} d{},{} g{} bias{}", N, C_in, C_out, H, W, kH, kW, stride[0],
                       stride[1], p, dilation[0], dilation[1], groups, bias);
  }
};

struct Result {
  Tensor y, gx, gw, gb;
};

// Forward and the gradients for a fixed random upstream gradient.
Result run(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  Tensor xr = x.detach().requires_grad_(), wr = w.detach().requires_grad_();
  Tensor br = c.bias ? b.detach().requires_grad_() : Tensor();
  Tensor y = std::holds_alternative<std::string>(c.padding)
                 ? F::conv2d(xr, wr, br, c.stride, std::get<std::string>(c.padding), c.dilation, c.groups)
                 : F::conv2d(xr, wr, br, c.stride, std::get<IntPair>(c.padding), c.dilation, c.groups);
  Tensor gy = uniform(y.sizes(), -1, 1, y.dtype(), 99);
  y.backward(gy);
  return {y.detach(), xr.grad(), wr.grad(), c.bias ? br.grad() : Tensor()};
}

bool algo_applies(const std::string& algo, const Case& c) {
  if (algo == "winograd") return c.kH == 3 && c.kW == 3 && c.stride == IntPair(1) && c.dilation == IntPair(1);
  if (algo == "depthwise") return c.groups == c.C_in && c.C_out % c.C_in == 0;
  return true;
}

void expect_matches_reference(const Case& c, Dtype dtype, bool noncontiguous = false) {
  Tensor x = uniform({c.N, c.C_in, c.H, c.W}, -1, 1, dtype, 1);
  Tensor w = uniform({c.C_out, c.C_in / c.groups, c.kH, c.kW}, -1, 1, dtype, 2);
  Tensor b = uniform({c.C_out}, -1, 1, dtype, 3);
  Result ref;
  {
    AlgoEnv env("reference");
    ref = run(c, x, w, b);
  }
  if (noncontiguous) {
    x = noncontig(x);
    w = noncontig(w);
  }
  const double tol = dtype == kFloat64 ? 1e-10 : 2e-4;
  for (std::string algo : {"auto", "im2col", "winograd", "depthwise"}) {
    if (!algo_applies(algo, c)) continue;
    AlgoEnv env(algo);
    Result r = run(c, x, w, b);
    SCOPED_TRACE(algo + " " + c.str() + " " + dtype_name(dtype));
    EXPECT_TRUE(close(r.y, ref.y, tol, tol));
    EXPECT_TRUE(close(r.gx, ref.gx, tol, tol));
    EXPECT_TRUE(close(r.gw, ref.gw, tol, tol));
    if (c.bias) {
      EXPECT_TRUE(close(r.gb, ref.gb, tol, tol));
    }
  }
}

// The grid: kernel 1/3/5 and non-square, stride 1/2, padding 0/1/2/'same', dilation 1/2, groups 1/2/depthwise.
std::vector<Case> grid() {
  std::vector<Case> cases;
  const std::vector<std::pair<int64_t, int64_t>> kernels = {{1, 1}, {3, 3}, {5, 5}, {3, 1}, {2, 4}};
  const std::vector<std::variant<IntPair, std::string>> pads = {IntPair(0), IntPair(1), IntPair(2), IntPair(1, 2),
                                                                std::string("same"), std::string("valid")};
  int i = 0;
  for (auto [kh, kw] : kernels) {
    for (int64_t s : {1, 2}) {
      for (const auto& p : pads) {
        for (int64_t d : {1, 2}) {
          for (int64_t groups : {1, 2, 4}) {
            if (std::holds_alternative<std::string>(p) && std::get<std::string>(p) == "same" && s != 1) continue;
            const bool bias = (i++ % 2) == 0;
            const int64_t C_out = groups == 4 ? 8 : 6;  // groups 4 with C_in 4: depthwise, multiplier 2
            cases.push_back({2, 4, 11, 9, C_out, kh, kw, IntPair(s, bias ? s : 1), IntPair(d), p, groups, bias});
          }
        }
      }
    }
  }
  return cases;
}

TEST(Conv2dAlgorithms, AllAlgorithmsMatchReferenceOnGridFloat64) {
  for (const Case& c : grid()) expect_matches_reference(c, kFloat64);
}

TEST(Conv2dAlgorithms, AllAlgorithmsMatchReferenceOnGridFloat32) {
  for (const Case& c : grid()) expect_matches_reference(c, kFloat32);
}

TEST(Conv2dAlgorithms, WinogradLargeChannelsAndOddSizes) {
  // Enough channels for the auto rule to pick winograd; odd output sizes leave partial 2x2 tiles.
  for (int64_t p : {0, 1, 2}) {
    expect_matches_reference({2, 16, 13, 10, 24, 3, 3, IntPair(1), IntPair(1), IntPair(p), 1, true}, kFloat32);
    expect_matches_reference({1, 32, 9, 9, 32, 3, 3, IntPair(1), IntPair(1), IntPair(p), 2, false}, kFloat64);
  }
  expect_matches_reference({1, 16, 8, 8, 16, 3, 3, IntPair(1), IntPair(1), std::string("same"), 1, true}, kFloat64);
}

TEST(Conv2dAlgorithms, DepthwiseStrideAndMultiplier) {
  for (int64_t s : {1, 2}) {
    expect_matches_reference({3, 8, 12, 11, 8, 3, 3, IntPair(s), IntPair(1), IntPair(1), 8, true}, kFloat32);
    expect_matches_reference({2, 3, 7, 9, 9, 5, 3, IntPair(s, 1), IntPair(1, 2), IntPair(2, 1), 3, false}, kFloat64);
  }
}

TEST(Conv2dAlgorithms, NonContiguousInputAndWeight) {
  expect_matches_reference({2, 4, 9, 8, 6, 3, 3, IntPair(1), IntPair(1), IntPair(1), 2, true}, kFloat64, true);
  expect_matches_reference({2, 16, 9, 8, 16, 3, 3, IntPair(1), IntPair(1), IntPair(1), 1, true}, kFloat32, true);
  expect_matches_reference({2, 6, 9, 8, 6, 3, 3, IntPair(2), IntPair(1), IntPair(1), 6, false}, kFloat64, true);
}

TEST(Conv2dAlgorithms, LargerBatchRunsSamplesInParallel) {
  expect_matches_reference({5, 6, 10, 12, 10, 3, 3, IntPair(2), IntPair(1), IntPair(1), 1, true}, kFloat32);
  expect_matches_reference({5, 8, 10, 12, 8, 1, 1, IntPair(1), IntPair(1), IntPair(0), 1, true}, kFloat32);
}

TEST(Conv2dShapes, ZeroBatchUnbatchedAndZeroChannels) {
  Tensor w = uniform({6, 4, 3, 3}).requires_grad_();
  Tensor x0 = uniform({0, 4, 5, 5}).requires_grad_();
  Tensor y0 = F::conv2d(x0, w, {}, 1, 1);
  EXPECT_EQ(y0.sizes(), (Shape{0, 6, 5, 5}));
  y0.sum().backward();
  EXPECT_TRUE(same(w.grad(), zeros({6, 4, 3, 3}, TensorOptions(kFloat64))));

  Tensor x = uniform({4, 7, 6});
  Tensor y = F::conv2d(x, w, {}, 2);
  EXPECT_EQ(y.sizes(), (Shape{6, 3, 2}));
  EXPECT_TRUE(close(y, F::conv2d(x.unsqueeze(0), w, {}, 2).squeeze(0)));

  Tensor b = uniform({6});
  Tensor ye = F::conv2d(uniform({2, 0, 5, 5}), uniform({6, 0, 3, 3}), b);
  EXPECT_EQ(ye.sizes(), (Shape{2, 6, 3, 3}));
  EXPECT_TRUE(close(ye, b.view({1, 6, 1, 1}).expand({2, 6, 3, 3})));
}

TEST(Conv2dShapes, SamePaddingEvenKernelPadsBottomRight) {
  // total padding 1 for a 2-wide kernel goes to the right: same as padding (0,0) on an input padded right.
  Tensor x = uniform({1, 2, 5, 6}), w = uniform({3, 2, 2, 4});
  Tensor y = F::conv2d(x, w, {}, 1, "same");
  EXPECT_EQ(y.sizes(), (Shape{1, 3, 5, 6}));
  Tensor xp = pad(x, {1, 2, 0, 1});  // W: total 3 -> left 1, right 2; H: total 1 -> top 0, bottom 1
  EXPECT_TRUE(close(y, F::conv2d(xp, w), 1e-12, 1e-12));
}

// Independent scatter definition of conv_transpose2d (groups, stride, padding, dilation, output_padding).
Tensor naive_conv_transpose(const Tensor& x, const Tensor& w, const Tensor& b, IntPair s, IntPair p, IntPair op,
                            int64_t groups, IntPair d) {
  const int64_t N = x.size(0), Ci = x.size(1), H = x.size(2), W = x.size(3), cog = w.size(1), kH = w.size(2),
                kW = w.size(3), Co = cog * groups, cig = Ci / groups;
  const int64_t Ho = (H - 1) * s[0] - 2 * p[0] + d[0] * (kH - 1) + op[0] + 1;
  const int64_t Wo = (W - 1) * s[1] - 2 * p[1] + d[1] * (kW - 1) + op[1] + 1;
  std::vector<double> xv = values(x), wv = values(w), out(N * Co * Ho * Wo, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < Ci; ++c)
      for (int64_t iy = 0; iy < H; ++iy)
        for (int64_t ix = 0; ix < W; ++ix)
          for (int64_t o = 0; o < cog; ++o)
            for (int64_t i = 0; i < kH; ++i)
              for (int64_t j = 0; j < kW; ++j) {
                const int64_t oy = iy * s[0] - p[0] + i * d[0], ox = ix * s[1] - p[1] + j * d[1];
                if (oy < 0 || oy >= Ho || ox < 0 || ox >= Wo) continue;
                const int64_t oc = (c / cig) * cog + o;
                out[((n * Co + oc) * Ho + oy) * Wo + ox] +=
                    xv[((n * Ci + c) * H + iy) * W + ix] * wv[((c * cog + o) * kH + i) * kW + j];
              }
  Tensor r = tensor(out, TensorOptions(kFloat64)).view({N, Co, Ho, Wo});
  return b.defined() ? add(r, b.view({1, Co, 1, 1})) : r;
}

TEST(ConvTranspose2d, MatchesScatterDefinitionForEveryAlgorithm) {
  struct TCase {
    int64_t Ci, Co_g, k, groups;
    IntPair s, p, op, d;
  };
  const std::vector<TCase> cases = {
      {4, 3, 3, 1, IntPair(1), IntPair(0), IntPair(0), IntPair(1)},
      {4, 3, 3, 1, IntPair(2), IntPair(1), IntPair(1), IntPair(1)},
      {4, 2, 3, 2, IntPair(2, 1), IntPair(1, 2), IntPair(1, 0), IntPair(1)},
      {6, 1, 3, 6, IntPair(2), IntPair(1), IntPair(0), IntPair(2)},
      {4, 3, 5, 1, IntPair(1), IntPair(2), IntPair(1), IntPair(2)},  // output_padding < dilation, >= stride
      {4, 4, 2, 2, IntPair(2), IntPair(0), IntPair(0), IntPair(1)},
      {16, 16, 3, 1, IntPair(1), IntPair(1), IntPair(0), IntPair(1)},
      {4, 3, 1, 1, IntPair(1), IntPair(0), IntPair(0), IntPair(1)},
  };
  for (const TCase& c : cases) {
    Tensor x = uniform({2, c.Ci, 5, 6}, -1, 1, kFloat64, 4), w = uniform({c.Ci, c.Co_g, c.k, c.k}, -1, 1, kFloat64, 5);
    Tensor b = uniform({c.Co_g * c.groups}, -1, 1, kFloat64, 6);
    Tensor want = naive_conv_transpose(x, w, b, c.s, c.p, c.op, c.groups, c.d);
    for (std::string algo : {"reference", "im2col", "winograd", "depthwise", "auto"}) {
      const bool wino = c.k == 3 && c.s == IntPair(1) && c.d == IntPair(1);
      if ((algo == "winograd" && !wino) || (algo == "depthwise" && c.groups != c.Co_g * c.groups)) continue;
      AlgoEnv env(algo);
      SCOPED_TRACE(algo);
      Tensor xr = noncontig(x).requires_grad_(), wr = w.detach().requires_grad_(), br = b.detach().requires_grad_();
      Tensor y = F::conv_transpose2d(xr, wr, br, c.s, c.p, c.op, c.groups, c.d);
      EXPECT_TRUE(close(y, want, 1e-10, 1e-10));
      // Gradients against the reference algorithm's.
      Tensor gy = uniform(y.sizes(), -1, 1, kFloat64, 7);
      y.backward(gy);
      AlgoEnv ref("reference");
      Tensor xq = x.detach().requires_grad_(), wq = w.detach().requires_grad_(), bq = b.detach().requires_grad_();
      F::conv_transpose2d(xq, wq, bq, c.s, c.p, c.op, c.groups, c.d).backward(gy);
      EXPECT_TRUE(close(xr.grad(), xq.grad(), 1e-10, 1e-10));
      EXPECT_TRUE(close(wr.grad(), wq.grad(), 1e-10, 1e-10));
      EXPECT_TRUE(close(br.grad(), bq.grad(), 1e-10, 1e-10));
    }
  }
}

TEST(ConvTranspose2d, ZeroBatchAndUnbatched) {
  Tensor w = uniform({4, 3, 3, 3});
  EXPECT_EQ(F::conv_transpose2d(uniform({0, 4, 5, 5}), w).sizes(), (Shape{0, 3, 7, 7}));
  Tensor x = uniform({4, 5, 5});
  EXPECT_TRUE(close(F::conv_transpose2d(x, w, {}, 2), F::conv_transpose2d(x.unsqueeze(0), w, {}, 2).squeeze(0)));
}

TEST(Conv2dGradcheck, FiniteDifferencesFloat64EveryAlgorithm) {
  for (std::string algo : {"reference", "im2col", "winograd", "depthwise"}) {
    AlgoEnv env(algo);
    SCOPED_TRACE(algo);
    const int64_t groups = algo == "depthwise" ? 3 : 1;
    Tensor x = uniform({2, 3, 6, 5}).requires_grad_();
    Tensor w = uniform({6, 3 / groups, 3, 3}, -1, 1, kFloat64, 1).requires_grad_();
    Tensor b = uniform({6}, -1, 1, kFloat64, 2).requires_grad_();
    const IntPair s = algo == "winograd" ? 1 : 2;
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return F::conv2d(in[0], in[1], in[2], s, 1, 1, groups); },
                          {x, w, b}));
  }
}

TEST(Conv2dGradcheck, DoubleBackwardByFiniteDifferences) {
  // d/d(x, w, gy) of the first-order gradients (create_graph): the gradient kernels are differentiable.
  Tensor x = uniform({1, 2, 5, 5}).requires_grad_();
  Tensor w = uniform({4, 2, 3, 3}, -1, 1, kFloat64, 1).requires_grad_();
  Tensor gy = uniform({1, 4, 3, 3}, -1, 1, kFloat64, 2).requires_grad_();
  auto f = [](const std::vector<Tensor>& in) {
    // The numeric pass runs f on plain copies without grad mode; the first-order grads need both.
    EnableGradGuard eg;
    auto leaf = [](const Tensor& t) { return t.requires_grad() ? t : t.detach().requires_grad_(); };
    Tensor x = leaf(in[0]), w = leaf(in[1]);
    Tensor y = F::conv2d(x, w, {}, 2, 1);
    auto g = autograd::grad({y}, {x, w}, {in[2]}, std::nullopt, /*create_graph=*/true);
    return add(g[0].sum() * 0.5, (g[1] * g[1]).sum());
  };
  EXPECT_TRUE(gradcheck(f, {x, w, gy}));
}

TEST(ConvTranspose2dGradcheck, FiniteDifferencesFloat64) {
  Tensor x = uniform({2, 4, 4, 3}).requires_grad_();
  Tensor w = uniform({4, 3, 3, 2}, -1, 1, kFloat64, 1).requires_grad_();
  Tensor b = uniform({6}, -1, 1, kFloat64, 2).requires_grad_();
  EXPECT_TRUE(gradcheck(
      [](const std::vector<Tensor>& in) { return F::conv_transpose2d(in[0], in[1], in[2], 2, 1, 1, 2, IntPair(1, 2)); },
      {x, w, b}));
}

TEST(Conv2dDtypes, ReducedPrecisionComputesInFloat32) {
  Tensor x = uniform({1, 3, 6, 6}, -1, 1, kFloat32), w = uniform({4, 3, 3, 3}, -1, 1, kFloat32, 1);
  for (Dtype dt : {kFloat16, kBFloat16}) {
    Tensor y = F::conv2d(x.to(dt), w.to(dt), {}, 1, 1);
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_TRUE(close(y.to(kFloat32), F::conv2d(x.to(dt).to(kFloat32), w.to(dt).to(kFloat32), {}, 1, 1).to(dt).to(kFloat32)));
  }
}

TEST(Conv2dErrors, BadArgumentsRaiseTypedErrors) {
  Tensor x = uniform({2, 4, 5, 5}), w = uniform({6, 4, 3, 3});
  EXPECT_THROW(F::conv2d(uniform({1, 2, 4, 5, 5}), w), ShapeError);
  EXPECT_THROW(F::conv2d(x, uniform({6, 4, 3})), ShapeError);
  EXPECT_THROW(F::conv2d(x, uniform({6, 3, 3, 3})), ShapeError);
  EXPECT_THROW(F::conv2d(x, uniform({5, 2, 3, 3}), {}, 1, 0, 1, 2), ShapeError);
  EXPECT_THROW(F::conv2d(x, w, {}, 1, 0, 1, 0), ShapeError);
  EXPECT_THROW(F::conv2d(x, uniform({6, 4, 7, 7})), ShapeError);
  EXPECT_THROW(F::conv2d(x, w, {}, 0), ShapeError);
  EXPECT_THROW(F::conv2d(x, w, {}, 1, -1), ShapeError);
  EXPECT_THROW(F::conv2d(x, w, {}, 1, 0, 0), ShapeError);
  EXPECT_THROW(F::conv2d(x, w, {}, 2, std::string("same")), ShapeError);
  EXPECT_THROW(F::conv2d(x, w, {}, 1, std::string("full")), Error);
  EXPECT_THROW(F::conv2d(x, w.to(kFloat32)), DtypeError);
  EXPECT_THROW(F::conv2d(x, w, uniform({6}, -1, 1, kFloat32)), DtypeError);
  EXPECT_THROW(F::conv2d(x.to(kInt64), w.to(kInt64)), DtypeError);
  EXPECT_THROW(F::conv2d(x, w, uniform({5})), ShapeError);
  EXPECT_THROW(F::conv2d(uniform({2, 4, 0, 5}), w, {}, 1, 2), ShapeError);
  EXPECT_THROW(F::conv2d(x, uniform({0, 4, 3, 3})), ShapeError);
  EXPECT_THROW(F::conv2d(x, uniform({6, 4, 0, 3})), ShapeError);
}

TEST(ConvTranspose2dErrors, BadArgumentsRaiseTypedErrors) {
  Tensor x = uniform({2, 4, 5, 5}), w = uniform({4, 3, 3, 3});
  EXPECT_THROW(F::conv_transpose2d(x, w, {}, 2, 0, 2), ShapeError);
  EXPECT_THROW(F::conv_transpose2d(x, uniform({3, 3, 3, 3})), ShapeError);
  EXPECT_THROW(F::conv_transpose2d(x, w, {}, 1, 0, 0, 3), ShapeError);
  EXPECT_THROW(F::conv_transpose2d(uniform({1, 4, 1, 1}), uniform({4, 3, 1, 1}), {}, 1, 2), ShapeError);
  EXPECT_THROW(F::conv_transpose2d(x, w, uniform({6})), ShapeError);
  EXPECT_THROW(F::conv_transpose2d(uniform({4, 5}), w), ShapeError);
}

TEST(Conv2dAlgorithms, ForcedAlgorithmThatCannotRunRaises) {
  Tensor x = uniform({1, 4, 6, 6});
  {
    AlgoEnv env("winograd");
    EXPECT_THROW(F::conv2d(x, uniform({4, 4, 5, 5})), ValueError);
    EXPECT_THROW(F::conv2d(x, uniform({4, 4, 3, 3}), {}, 2), ValueError);
    EXPECT_THROW(F::conv_transpose2d(x, uniform({4, 4, 3, 3}), {}, 1, 3), ValueError);  // padding 3 > 2
  }
  {
    AlgoEnv env("depthwise");
    EXPECT_THROW(F::conv2d(x, uniform({4, 2, 3, 3}), {}, 1, 0, 1, 2), ValueError);
  }
  {
    AlgoEnv env("fastest");
    EXPECT_THROW(F::conv2d(x, uniform({4, 4, 3, 3})), ValueError);
  }
}

TEST(Conv2dDevices, VulkanConv2dMatchesTheCpuAndMixedDevicesRaise) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  Tensor x = uniform({1, 2, 5, 5}, -1, 1, kFloat32), w = uniform({3, 2, 3, 3}, -1, 1, kFloat32);
  const Tensor xv = x.to(Device("vulkan")), wv = w.to(Device("vulkan"));
  EXPECT_TRUE(close(F::conv2d(xv, wv, {}, 1, 1).cpu(), F::conv2d(x, w, {}, 1, 1), 1e-5, 1e-5));
  EXPECT_THROW(F::conv2d(xv, w), DeviceError);
}

}  // namespace
}  // namespace adept::testing
