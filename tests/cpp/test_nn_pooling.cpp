// Tests of the 2-d pooling ops and interpolate: forward against plain reference loops written from the
// PyTorch docs, gradients by finite differences (float64, double backward too), NaN, empty batches,
// unbatched and non-contiguous inputs, and the typed errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "adept/adept.h"
#include "adept/nn/functional/interpolate.h"
#include "adept/nn/functional/pooling.h"
#include "adept/vulkan.h"
#include "gradcheck.h"
#include "test_util.h"

namespace adept::testing {
namespace {

namespace F = adept::nn::functional;
using nn::IntPair;

// Distinct values spaced 0.1 apart in a random order, so max pooling has no ties and finite differences
// never swap the maximum.
Tensor distinct(const Shape& shape, uint64_t seed = 1) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  Generator g(seed);
  return mul(randperm(n, TensorOptions(kFloat64), &g).to(kFloat64), 0.1).reshape(shape);
}

Tensor with_grad(Tensor t) { return t.detach().clone().requires_grad_(); }

struct PoolArgs {
  IntPair k, s, p, d = 1;
  bool ceil = false;
};

int64_t ref_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const double span = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / static_cast<double>(s);
  int64_t out = static_cast<int64_t>(ceil ? std::ceil(span) : std::floor(span)) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;  // the last window must start inside input or left padding
  return out;
}

// Plain max / average pooling of x (N, C, H, W) following the PyTorch docs' formulas.
Tensor ref_pool(const Tensor& x, const PoolArgs& a, bool is_max, bool count_include_pad = true, int64_t divisor = 0) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t Ho = ref_out_size(H, a.k[0], a.s[0], a.p[0], a.d[0], a.ceil);
  const int64_t Wo = ref_out_size(W, a.k[1], a.s[1], a.p[1], a.d[1], a.ceil);
  std::vector<double> v = values(x.contiguous()), out;
  for (int64_t n = 0; n < N * C; ++n) {
    for (int64_t i = 0; i < Ho; ++i) {
      for (int64_t j = 0; j < Wo; ++j) {
        double m = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t inside = 0, padded = 0;
        for (int64_t u = 0; u < a.k[0]; ++u) {
          for (int64_t w = 0; w < a.k[1]; ++w) {
            const int64_t y = i * a.s[0] - a.p[0] + u * a.d[0], z = j * a.s[1] - a.p[1] + w * a.d[1];
            if (y < H + a.p[0] && z < W + a.p[1]) ++padded;  // windows are clipped to the padded input
            if (y < 0 || y >= H || z < 0 || z >= W) continue;
            const double e = v[n * H * W + y * W + z];
            m = std::max(m, e);
            sum += e;
            ++inside;
          }
        }
        out.push_back(is_max ? m : sum / static_cast<double>(divisor ? divisor : count_include_pad ? padded : inside));
      }
    }
  }
  return tensor(out, TensorOptions(kFloat64)).reshape({N, C, Ho, Wo});
}

// Plain adaptive average pooling: window i = [floor(i*H/Ho), ceil((i+1)*H/Ho)).
Tensor ref_adaptive_avg(const Tensor& x, int64_t Ho, int64_t Wo) {
  const int64_t NC = x.size(0) * x.size(1), H = x.size(2), W = x.size(3);
  std::vector<double> v = values(x.contiguous()), out;
  for (int64_t n = 0; n < NC; ++n) {
    for (int64_t i = 0; i < Ho; ++i) {
      for (int64_t j = 0; j < Wo; ++j) {
        const int64_t h0 = i * H / Ho, h1 = ((i + 1) * H + Ho - 1) / Ho;
        const int64_t w0 = j * W / Wo, w1 = ((j + 1) * W + Wo - 1) / Wo;
        double sum = 0;
        for (int64_t y = h0; y < h1; ++y) {
          for (int64_t z = w0; z < w1; ++z) sum += v[n * H * W + y * W + z];
        }
        out.push_back(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
      }
    }
  }
  return tensor(out, TensorOptions(kFloat64)).reshape({x.size(0), x.size(1), Ho, Wo});
}

const std::vector<PoolArgs> kPoolGrid = {
    {2, 2, 0}, {3, 1, 1}, {3, 2, 1}, {{3, 2}, {2, 1}, {1, 0}}, {2, 2, 0, 1, true}, {3, 2, 1, 1, true},
    {{2, 3}, {3, 2}, {1, 1}, 1, true}, {3, 1, 1, 2}, {{3, 2}, {2, 3}, {1, 1}, {2, 1}, true}};

// ---- max_pool2d -----------------------------------------------------------------------------------------

TEST(MaxPool2d, ForwardMatchesReferenceOverGrid) {
  Tensor x = distinct({2, 3, 7, 6});
  for (const PoolArgs& a : kPoolGrid) {
    Tensor y = F::max_pool2d(x, a.k, a.s, a.p, a.d, a.ceil);
    EXPECT_TRUE(close(y, ref_pool(x, a, true), 0, 0)) << "k " << a.k[0] << "," << a.k[1] << " ceil " << a.ceil;
  }
}

TEST(MaxPool2d, IndicesPointAtTheMaximaWithinEachPlane) {
  Tensor x = distinct({2, 2, 5, 7});
  auto [y, idx] = F::max_pool2d_with_indices(x, {3, 2}, IntPair{2, 2}, {1, 1}, 1, true);
  ASSERT_EQ(idx.dtype(), kInt64);
  Tensor picked = gather(x.reshape({2, 2, 35}), 2, idx.reshape({2, 2, -1})).reshape(y.sizes());
  EXPECT_TRUE(same(picked, y));
}

TEST(MaxPool2d, GradcheckFloat64) {
  for (const PoolArgs& a : kPoolGrid) {
    Tensor x = with_grad(distinct({2, 2, 6, 5}, 3));
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return F::max_pool2d(in[0], a.k, a.s, a.p, a.d, a.ceil); },
                          {x}));
  }
}

TEST(MaxPool2d, DoubleBackwardGradcheck) {
  // The gradient is linear in the output gradient (a scatter at the indices): check it by finite differences.
  Tensor x = distinct({1, 2, 5, 5}, 4);
  Tensor gy = with_grad(uniform({1, 2, 3, 3}, -1, 1, kFloat64, 5));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
    EnableGradGuard eg;  // gradcheck's numeric pass runs f under no_grad
    Tensor xr = x.detach().requires_grad_();
    return autograd::grad({F::max_pool2d(xr, 3, 2, 1)}, {xr}, {in[0]}, std::nullopt, true)[0];
  }, {gy}));
}

TEST(MaxPool2d, NonContiguousAndUnbatchedInputsMatchContiguous) {
  Tensor x = distinct({2, 3, 6, 6});
  Tensor y = F::max_pool2d(x, 2);
  Tensor channels_last = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  EXPECT_FALSE(channels_last.is_contiguous());
  EXPECT_TRUE(same(F::max_pool2d(channels_last, 2), y));
  EXPECT_TRUE(same(F::max_pool2d(x.select(0, 1), 2), y.select(0, 1)));
}

TEST(MaxPool2d, NanPropagatesAndPaddingNeverWins) {
  Tensor x = full({1, 1, 2, 2}, -std::numeric_limits<double>::infinity(), TensorOptions(kFloat64)).contiguous();
  auto [y, idx] = F::max_pool2d_with_indices(x, 3, 1, 1);
  EXPECT_TRUE(std::isinf(values(y)[0]) && values(y)[0] < 0);  // -inf, not a padded 0
  for (int64_t i : ivalues(idx)) EXPECT_TRUE(i >= 0 && i < 4);
  Tensor z = T({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  z.data_ptr<float>()[4] = std::nanf("");
  auto [yz, iz] = F::max_pool2d_with_indices(z, 2, 1);
  for (double v : values(yz)) EXPECT_TRUE(std::isnan(v));
  for (int64_t i : ivalues(iz)) EXPECT_EQ(i, 4);
}

TEST(MaxPool2d, DilatedWindowMissingTheInputGivesMinusInfAndNoGradient) {
  // kernel 2, dilation 3, padding 1 over 2 pixels: the taps sit at -1 and 2, both outside.
  Tensor x = with_grad(uniform({1, 1, 2, 2}));
  auto [y, idx] = F::max_pool2d_with_indices(x, 2, 1, 1, 3);
  ASSERT_EQ(y.sizes(), (Shape{1, 1, 1, 1}));
  EXPECT_TRUE(std::isinf(values(y)[0]) && values(y)[0] < 0);
  EXPECT_EQ(ivalues(idx)[0], -1);
  y.sum().backward();
  EXPECT_TRUE(same(x.grad(), zeros_like(x)));
  EXPECT_THROW(F::max_unpool2d(y, idx, 2), Error);  // -1 is not a position
}

TEST(MaxPool2d, EmptyBatchGivesEmptyResultAndGradient) {
  Tensor x = with_grad(empty({0, 3, 5, 5}, TensorOptions(kFloat32)));
  Tensor y = F::max_pool2d(x, 2);
  EXPECT_EQ(y.sizes(), (Shape{0, 3, 2, 2}));
  y.sum().backward();
  EXPECT_EQ(x.grad().sizes(), x.sizes());
}

TEST(MaxPool2d, Float32AndBFloat16MatchFloat64) {
  Tensor x = distinct({1, 2, 6, 6});
  Tensor ref = F::max_pool2d(x, 3, 2, 1);
  EXPECT_TRUE(close(F::max_pool2d(x.to(kFloat32), 3, 2, 1).to(kFloat64), ref, 1e-6));
  EXPECT_TRUE(close(F::max_pool2d(x.to(kBFloat16), 3, 2, 1).to(kFloat64), ref, 1e-2));
}

TEST(MaxPool2d, BadArgumentsRaiseTypedErrors) {
  Tensor x = uniform({2, 3, 5, 5});
  EXPECT_THROW(F::max_pool2d(x, 6), ShapeError);                              // output too small
  EXPECT_THROW(F::max_pool2d(x, 2, std::nullopt, 2), ShapeError);            // pad > kernel / 2
  EXPECT_THROW(F::max_pool2d(x, 2, IntPair{0, 1}), ShapeError);              // zero stride
  EXPECT_THROW(F::max_pool2d(x, 0), ShapeError);                             // zero kernel
  EXPECT_THROW(F::max_pool2d(x, 2, std::nullopt, -1), ShapeError);           // negative padding
  EXPECT_THROW(F::max_pool2d(x, 2, std::nullopt, 0, 0), ShapeError);         // zero dilation
  EXPECT_THROW(F::max_pool2d(uniform({5, 5}), 2), ShapeError);               // 2-d input
  EXPECT_THROW(F::max_pool2d(uniform({2, 0, 5, 5}), 2), ShapeError);         // empty channels
  EXPECT_THROW(F::max_pool2d(x.to(kInt64), 2), DtypeError);
  try {
    F::max_pool2d(x, 6);
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("max_pool2d"), std::string::npos);
  }
}

TEST(MaxPool2d, VulkanMatchesTheCpu) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  Tensor x = uniform({1, 2, 5, 5}, -1, 1, kFloat32);
  Tensor got = F::max_pool2d(x.to(Device("vulkan")), 3, 2, 1).cpu();
  EXPECT_TRUE(equal(got, F::max_pool2d(x, 3, 2, 1)));
}

// ---- avg_pool2d -----------------------------------------------------------------------------------------

TEST(AvgPool2d, ForwardMatchesReferenceOverGrid) {
  Tensor x = uniform({2, 3, 7, 6});
  for (const PoolArgs& a0 : kPoolGrid) {
    if (a0.d != IntPair(1)) continue;
    for (int variant = 0; variant < 3; ++variant) {
      const bool include = variant != 1;
      const std::optional<int64_t> div = variant == 2 ? std::optional<int64_t>(5) : std::nullopt;
      Tensor y = F::avg_pool2d(x, a0.k, a0.s, a0.p, a0.ceil, include, div);
      EXPECT_TRUE(close(y, ref_pool(x, a0, false, include, div.value_or(0)), 1e-12, 1e-12))
          << "k " << a0.k[0] << "," << a0.k[1] << " ceil " << a0.ceil << " variant " << variant;
    }
  }
}

TEST(AvgPool2d, GradcheckFloat64) {
  for (const PoolArgs& a : kPoolGrid) {
    if (a.d != IntPair(1)) continue;
    Tensor x = with_grad(uniform({2, 2, 5, 6}, -1, 1, kFloat64, 7));
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
      return F::avg_pool2d(in[0], a.k, a.s, a.p, a.ceil, false);
    }, {x}));
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
      return F::avg_pool2d(in[0], a.k, a.s, a.p, a.ceil, true, 3);
    }, {x}));
  }
}

TEST(AvgPool2d, DoubleBackwardGradcheck) {
  Tensor gy = with_grad(uniform({2, 2, 3, 3}, -1, 1, kFloat64, 8));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
    EnableGradGuard eg;
    Tensor x = uniform({2, 2, 5, 5}).requires_grad_();
    return autograd::grad({F::avg_pool2d(x, 3, 2, 1, false, false)}, {x}, {in[0]}, std::nullopt, true)[0];
  }, {gy}));
}

TEST(AvgPool2d, NonContiguousUnbatchedAndEmptyBatch) {
  Tensor x = uniform({2, 3, 6, 5});
  Tensor y = F::avg_pool2d(x, 3, 2, 1, true, false);
  EXPECT_TRUE(close(F::avg_pool2d(noncontig(x), 3, 2, 1, true, false), y, 1e-15));
  EXPECT_TRUE(close(F::avg_pool2d(x.select(0, 0), 3, 2, 1, true, false), y.select(0, 0), 1e-15));
  EXPECT_EQ(F::avg_pool2d(uniform({0, 3, 6, 5}), 2).sizes(), (Shape{0, 3, 3, 2}));
}

TEST(AvgPool2d, BadArgumentsRaiseTypedErrors) {
  Tensor x = uniform({2, 3, 5, 5});
  EXPECT_THROW(F::avg_pool2d(x, 2, std::nullopt, 0, false, true, 0), ShapeError);  // divisor 0
  EXPECT_THROW(F::avg_pool2d(x, 3, std::nullopt, 2), ShapeError);
  EXPECT_THROW(F::avg_pool2d(x, 6), ShapeError);
  EXPECT_THROW(F::avg_pool2d(x.to(kInt32), 2), DtypeError);
  EXPECT_THROW(F::avg_pool2d(uniform({3, 5}), 2), ShapeError);
}

// ---- adaptive pooling -----------------------------------------------------------------------------------

TEST(AdaptiveAvgPool2d, ForwardMatchesReferenceForSizesUpAndDown) {
  Tensor x = uniform({2, 3, 7, 5});
  for (IntPair o : {IntPair{1, 1}, IntPair{3, 2}, IntPair{7, 5}, IntPair{4, 4}, IntPair{10, 9}, IntPair{2, 7}}) {
    EXPECT_TRUE(close(F::adaptive_avg_pool2d(x, o), ref_adaptive_avg(x, o[0], o[1]), 1e-12, 1e-12));
  }
}

TEST(AdaptiveAvgPool2d, GradcheckAndDoubleBackward) {
  for (IntPair o : {IntPair{3, 2}, IntPair{4, 7}}) {
    Tensor x = with_grad(uniform({2, 2, 5, 6}, -1, 1, kFloat64, 9));
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return F::adaptive_avg_pool2d(in[0], o); }, {x}));
  }
  Tensor gy = with_grad(uniform({1, 2, 3, 2}, -1, 1, kFloat64, 10));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
    EnableGradGuard eg;
    Tensor x = uniform({1, 2, 5, 5}).requires_grad_();
    return autograd::grad({F::adaptive_avg_pool2d(x, {3, 2})}, {x}, {in[0]}, std::nullopt, true)[0];
  }, {gy}));
}

TEST(AdaptiveAvgPool2d, ZeroOutputSizeAndErrors) {
  Tensor x = with_grad(uniform({2, 3, 5, 5}));
  Tensor y = F::adaptive_avg_pool2d(x, {0, 3});
  EXPECT_EQ(y.sizes(), (Shape{2, 3, 0, 3}));
  y.sum().backward();
  EXPECT_TRUE(same(x.grad(), zeros_like(x)));
  EXPECT_EQ(F::adaptive_avg_pool2d(uniform({2, 0, 5, 5}), 2).sizes(), (Shape{2, 0, 2, 2}));
  EXPECT_THROW(F::adaptive_avg_pool2d(x, -1), ShapeError);
  EXPECT_THROW(F::adaptive_avg_pool2d(uniform({2, 3, 0, 5}), 2), ShapeError);
  EXPECT_THROW(F::adaptive_avg_pool2d(uniform({5, 5}), 2), ShapeError);
  EXPECT_THROW(F::adaptive_avg_pool2d(x.to(kInt64), 2), DtypeError);
}

TEST(AdaptiveMaxPool2d, MatchesMaxOfAdaptiveWindowsAndGradchecks) {
  Tensor x = distinct({2, 2, 7, 5});
  auto [y, idx] = F::adaptive_max_pool2d_with_indices(x, {3, 4});
  Tensor picked = gather(x.reshape({2, 2, 35}), 2, idx.reshape({2, 2, -1})).reshape(y.sizes());
  EXPECT_TRUE(same(picked, y));
  // every index lies in its adaptive window and holds the window's maximum
  std::vector<double> xv = values(x), yv = values(y);
  std::vector<int64_t> iv = ivalues(idx);
  for (int64_t p = 0; p < 4; ++p) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        const int64_t h0 = i * 7 / 3, h1 = ((i + 1) * 7 + 2) / 3, w0 = j * 5 / 4, w1 = ((j + 1) * 5 + 3) / 4;
        double m = -1e300;
        for (int64_t a = h0; a < h1; ++a)
          for (int64_t b = w0; b < w1; ++b) m = std::max(m, xv[p * 35 + a * 5 + b]);
        EXPECT_EQ(yv[p * 12 + i * 4 + j], m);
      }
    }
  }
  Tensor xg = with_grad(distinct({1, 2, 6, 5}, 11));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return F::adaptive_max_pool2d(in[0], {4, 3}); }, {xg}));
  EXPECT_THROW(F::adaptive_max_pool2d(uniform({2, 0, 5, 5}), 2), ShapeError);
}

// ---- max_unpool2d ---------------------------------------------------------------------------------------

TEST(MaxUnpool2d, InvertsMaxPoolAtTheMaxima) {
  Tensor x = distinct({2, 3, 6, 6});
  auto [y, idx] = F::max_pool2d_with_indices(x, 2);
  Tensor u = F::max_unpool2d(y, idx, 2);
  ASSERT_EQ(u.sizes(), x.sizes());
  // u holds x at the argmax positions and zero elsewhere
  Tensor mask = ne(u, 0.0);
  EXPECT_EQ(mask.sum().item().to_int64(), y.numel());
  EXPECT_TRUE(same(where(mask, x, zeros_like(x)), u));
  // output_size within (default - stride, default + stride)
  auto [y5, idx5] = F::max_pool2d_with_indices(distinct({1, 1, 5, 5}), 2);
  EXPECT_EQ(F::max_unpool2d(y5, idx5, 2, std::nullopt, 0, Shape{5, 5}).sizes(), (Shape{1, 1, 5, 5}));
  EXPECT_EQ(F::max_unpool2d(y5, idx5, 2, std::nullopt, 0, Shape{1, 1, 5, 5}).sizes(), (Shape{1, 1, 5, 5}));
  EXPECT_EQ(F::max_unpool2d(y5.select(0, 0), idx5.select(0, 0), 2, std::nullopt, 0, Shape{5, 5}).sizes(), (Shape{1, 5, 5}));
}

TEST(MaxUnpool2d, GradcheckFloat64) {
  // Non-overlapping windows: unique indices (with duplicates the last write wins, so only some get gradient).
  auto [y, idx] = F::max_pool2d_with_indices(distinct({2, 2, 6, 5}), 2);
  Tensor yg = with_grad(uniform(y.sizes(), -1, 1, kFloat64, 12));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return F::max_unpool2d(in[0], idx, 2, 2, 0, Shape{6, 5}); }, {yg}));
}

TEST(MaxUnpool2d, BadArgumentsRaiseTypedErrors) {
  Tensor y = uniform({1, 1, 2, 2});
  Tensor idx = arange(4, TensorOptions(kInt64)).reshape({1, 1, 2, 2});
  EXPECT_THROW(F::max_unpool2d(y, add(idx, 100), 2), Error);                           // index outside 4x4
  EXPECT_THROW(F::max_unpool2d(y, idx.to(kInt32), 2), DtypeError);
  EXPECT_THROW(F::max_unpool2d(uniform({1, 1, 2, 3}), idx, 2), ShapeError);
  EXPECT_THROW(F::max_unpool2d(y, idx, 2, std::nullopt, 0, Shape{9, 9}), ValueError);  // not within stride
  EXPECT_THROW(F::max_unpool2d(y, idx, 2, std::nullopt, 0, Shape{1, 4, 4}), ValueError);
  EXPECT_THROW(F::max_unpool2d(uniform({2, 2}), idx.reshape({2, 2}), 2), ShapeError);
}

// ---- interpolate ----------------------------------------------------------------------------------------

TEST(Interpolate, NearestIntegerScaleRepeatsPixels) {
  Tensor x = uniform({2, 3, 4, 5});
  Tensor y = F::interpolate(x, std::nullopt, std::vector<double>{2.0, 3.0});
  ASSERT_EQ(y.sizes(), (Shape{2, 3, 8, 15}));
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < 8; ++i) rows.push_back(i / 2);
  for (int64_t i = 0; i < 15; ++i) cols.push_back(i / 3);
  Tensor expect = index_select(index_select(x, 2, tensor(rows)), 3, tensor(cols));
  EXPECT_TRUE(same(y, expect));
}

TEST(Interpolate, NearestNonIntegerScaleUsesFloorOfDstTimesInverseScale) {
  Tensor x = arange(10, TensorOptions(kFloat32)).reshape({1, 1, 10});
  // scale_factor 1.5 -> 15 outputs reading floor(i / 1.5); recompute -> floor(i * 10 / 15)
  Tensor y = F::interpolate(x, std::nullopt, std::vector<double>{1.5});
  std::vector<double> v = values(y);
  ASSERT_EQ(v.size(), 15u);
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(v[i], std::floor(static_cast<float>(i) * static_cast<float>(1.0 / 1.5)));
  // scale 0.7 -> 7 outputs; with recompute_scale_factor the ratio is 10/7 instead of 1/0.7
  Tensor a = F::interpolate(x, std::nullopt, std::vector<double>{0.7});
  Tensor b = F::interpolate(x, std::nullopt, std::vector<double>{0.7}, "nearest", std::nullopt, true);
  ASSERT_EQ(a.size(-1), 7);
  ASSERT_EQ(b.size(-1), 7);
  for (int64_t i = 0; i < 7; ++i) {
    EXPECT_EQ(values(a)[i], std::floor(static_cast<float>(i) * static_cast<float>(1.0 / 0.7)));
    EXPECT_EQ(values(b)[i], std::floor(static_cast<float>(i) * (10.0f / 7.0f)));
  }
  // nearest-exact reads floor((i + 0.5) * scale)
  Tensor c = F::interpolate(x, Shape{4}, std::nullopt, "nearest-exact");
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(values(c)[i], std::floor((i + 0.5) * 2.5));
}

TEST(Interpolate, BilinearAlignCornersKeepsCornersAndMatchesFormula) {
  Tensor x = uniform({1, 2, 3, 4});
  Tensor y = F::interpolate(x, Shape{5, 7}, std::nullopt, "bilinear", true);
  EXPECT_TRUE(close(y.index({Slice(), Slice(), 0, 0}), x.index({Slice(), Slice(), 0, 0}), 1e-12));
  EXPECT_TRUE(close(y.index({Slice(), Slice(), -1, -1}), x.index({Slice(), Slice(), -1, -1}), 1e-12));
  // align_corners=False, 2x: output (1, 1) sits at source (0.25, 0.25)
  Tensor z = F::interpolate(x, std::nullopt, std::vector<double>{2.0}, "bilinear", false);
  std::vector<double> xv = values(x), zv = values(z);
  const double expect = 0.75 * (0.75 * xv[0] + 0.25 * xv[1]) + 0.25 * (0.75 * xv[4] + 0.25 * xv[5]);
  EXPECT_NEAR(zv[1 * 8 + 1], expect, 1e-12);
  // output (0, 0) sits at source -0.25, clamped to 0
  EXPECT_NEAR(zv[0], xv[0], 1e-12);
}

TEST(Interpolate, GradcheckEveryMode) {
  struct Case {
    Shape in;
    std::optional<Shape> size;
    std::optional<std::vector<double>> scale;
    std::string mode;
    std::optional<bool> corners;
  };
  const std::vector<Case> cases = {
      {{1, 2, 3, 4}, Shape{5, 7}, std::nullopt, "nearest", std::nullopt},
      {{1, 2, 5, 4}, std::nullopt, std::vector<double>{0.7, 1.5}, "nearest", std::nullopt},
      {{1, 2, 3, 4}, Shape{5, 3}, std::nullopt, "nearest-exact", std::nullopt},
      {{1, 2, 3, 4}, Shape{5, 7}, std::nullopt, "bilinear", false},
      {{1, 2, 5, 4}, Shape{3, 7}, std::nullopt, "bilinear", true},
      {{1, 2, 4, 4}, std::nullopt, std::vector<double>{2.3}, "bilinear", false},
      {{1, 2, 4, 3}, Shape{6, 5}, std::nullopt, "bicubic", false},
      {{1, 2, 4, 3}, Shape{3, 5}, std::nullopt, "bicubic", true},
      {{2, 3, 5}, Shape{8}, std::nullopt, "linear", false},
      {{2, 3, 5}, Shape{3}, std::nullopt, "nearest", std::nullopt},
      {{1, 2, 5, 6}, Shape{3, 4}, std::nullopt, "area", std::nullopt},
  };
  for (const Case& c : cases) {
    Tensor x = with_grad(uniform(c.in, -1, 1, kFloat64, 13));
    EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
      return F::interpolate(in[0], c.size, c.scale, c.mode, c.corners);
    }, {x})) << c.mode;
  }
}

TEST(Interpolate, DoubleBackwardGradcheck) {
  Tensor gy = with_grad(uniform({1, 2, 5, 7}, -1, 1, kFloat64, 14));
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) {
    EnableGradGuard eg;
    Tensor x = uniform({1, 2, 3, 4}).requires_grad_();
    Tensor y = F::interpolate(x, Shape{5, 7}, std::nullopt, "bilinear", false);
    return autograd::grad({y}, {x}, {in[0]}, std::nullopt, true)[0];
  }, {gy}));
}

TEST(Interpolate, NonContiguousUnbatchedSizesAndEmptyBatch) {
  Tensor x = uniform({2, 3, 4, 5}, -1, 1, kFloat32);
  Tensor y = F::interpolate(x, Shape{7, 3}, std::nullopt, "bilinear", false);
  EXPECT_TRUE(same(F::interpolate(noncontig(x), Shape{7, 3}, std::nullopt, "bilinear", false), y));
  EXPECT_EQ(F::interpolate(uniform({0, 3, 4, 5}), Shape{2, 2}, std::nullopt, "bilinear").sizes(), (Shape{0, 3, 2, 2}));
  EXPECT_EQ(F::interpolate(x, Shape{3}).sizes(), (Shape{2, 3, 3, 3}));  // one size for both dims
}

TEST(Interpolate, BadArgumentsRaiseTypedErrors) {
  Tensor x = uniform({2, 3, 5, 5});
  const std::vector<double> two{2.0};
  EXPECT_THROW(F::interpolate(x, Shape{3}, two), ValueError);                        // both
  EXPECT_THROW(F::interpolate(x), ValueError);                                       // neither
  EXPECT_THROW(F::interpolate(x, Shape{3}, std::nullopt, "nearest", true), ValueError);
  EXPECT_THROW(F::interpolate(x, Shape{3, 4, 5}), ValueError);
  EXPECT_THROW(F::interpolate(x, Shape{3}, std::nullopt, "nearest", std::nullopt, true), ValueError);
  EXPECT_THROW(F::interpolate(uniform({2, 3, 4}), Shape{3}, std::nullopt, "bilinear"), NotImplementedForDevice);
  EXPECT_THROW(F::interpolate(x, Shape{3}, std::nullopt, "linear"), NotImplementedForDevice);
  EXPECT_THROW(F::interpolate(x, Shape{3}, std::nullopt, "foo"), NotImplementedForDevice);
  EXPECT_THROW(F::interpolate(uniform({4, 4}), Shape{3}), NotImplementedForDevice);
  EXPECT_THROW(F::interpolate(x, Shape{0}), ShapeError);
  EXPECT_THROW(F::interpolate(x, std::nullopt, std::vector<double>{0.1}), ShapeError);
  EXPECT_THROW(F::interpolate(uniform({2, 0, 4, 4}), Shape{3}, std::nullopt, "bilinear"), ShapeError);
  EXPECT_THROW(F::interpolate(x.to(kInt64), Shape{3}), DtypeError);
}

}  // namespace
}  // namespace adept::testing
