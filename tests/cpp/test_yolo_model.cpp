// The YOLO11 model against the facts sheet (../shared/docs/yolo11.md): parameter counts per layer
// and per scale, state-dict key names, internal widths, bias init, output shapes, the decode of
// eval mode against a direct per-anchor computation, input errors and the GFLOPs summary.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "adept/adept.h"
#include "adept/models/yolo/yolo11.h"
#include "gradcheck.h"
#include "test_util.h"

namespace adept::testing {
namespace {

using namespace adept::models::yolo;

int64_t count(const std::vector<Tensor>& ps) {
  int64_t n = 0;
  for (const Tensor& p : ps) n += p.numel();
  return n;
}

std::map<std::string, Tensor> state_of(const nn::Module& m) {
  std::map<std::string, Tensor> out;
  for (auto& [k, v] : m.state_dict()) out[k] = v;
  return out;
}

TEST(YoloModel, Yolo11nParameterCountsPerLayer) {
  Yolo11 model("n", 80);
  // Sheet table 1.2.
  const std::vector<int64_t> expected{464,    4672,  6640,   36992,  26080, 147712, 87040, 295424,
                                      346112, 164608, 249728, 0,      0,     111296, 0,     0,
                                      32096,  36992, 0,      86720,  147712, 0,     378880, 464912};
  ASSERT_EQ(model.model->size(), 24);
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(count((*model.model)[i]->parameters()), expected[i]) << "layer " << i;
  EXPECT_EQ(count(model.parameters()), 2624080);
  int64_t trainable = 0;
  for (const Tensor& p : model.parameters())
    if (p.requires_grad()) trainable += p.numel();
  EXPECT_EQ(trainable, 2624064);
  // Detect per level (sheet section 3): box / cls branches and the 16 DFL weights.
  const std::vector<int64_t> box{78144, 115008, 188736}, cls{19904, 25728, 37376};
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(count((*model.detect->cv2)[i]->parameters()), box[i]);
    EXPECT_EQ(count((*model.detect->cv3)[i]->parameters()), cls[i]);
  }
  EXPECT_EQ(count(model.detect->dfl->parameters()), 16);
}

TEST(YoloModel, TotalsOfAllScales) {
  const std::vector<std::pair<std::string, int64_t>> totals{
      {"n", 2624080}, {"s", 9458752}, {"m", 20114688}, {"l", 25372160}, {"x", 56966176}};
  for (auto& [scale, n] : totals) EXPECT_EQ(count(Yolo11(scale, 80).parameters()), n) << "scale " << scale;
  // Another class count changes the class branches only (sheet 2.12 with c3 = max(ch0, min(nc, 100))).
  Yolo11 n3("n", 3);
  const int64_t c3 = 64;
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t ci = 64 << i;
    const int64_t want = (9 * ci + 2 * ci) + (ci * c3 + 2 * c3) + (9 * c3 + 2 * c3) + (c3 * c3 + 2 * c3) + (c3 * 3 + 3);
    EXPECT_EQ(count((*n3.detect->cv3)[i]->parameters()), want) << "level " << i;
  }
  EXPECT_EQ(n3.detect->no, 64 + 3);
}

TEST(YoloModel, StateDictKeysFollowUltralytics) {
  Yolo11 model("n", 80);
  auto sd = state_of(model);
  for (const char* k :
       {"model.0.conv.weight", "model.0.bn.weight", "model.0.bn.bias", "model.0.bn.running_mean",
        "model.0.bn.running_var", "model.0.bn.num_batches_tracked", "model.2.cv1.conv.weight",
        "model.2.m.0.cv1.conv.weight", "model.2.m.0.cv2.bn.bias", "model.6.m.0.cv3.conv.weight",
        "model.6.m.0.m.1.cv2.conv.weight", "model.9.cv2.conv.weight", "model.10.m.0.attn.qkv.conv.weight",
        "model.10.m.0.attn.proj.bn.weight", "model.10.m.0.attn.pe.conv.weight", "model.10.m.0.ffn.1.conv.weight",
        "model.23.cv2.0.0.conv.weight", "model.23.cv2.2.2.weight", "model.23.cv2.2.2.bias",
        "model.23.cv3.1.0.0.conv.weight", "model.23.cv3.1.1.1.bn.weight", "model.23.cv3.2.2.bias",
        "model.23.dfl.conv.weight"})
    EXPECT_TRUE(sd.count(k)) << k;
  // Every key is model.<i>.<...>; no stray keys (strides are not state).
  for (auto& [k, v] : sd) EXPECT_EQ(k.rfind("model.", 0), 0u) << k;
  // Internal widths of sheet 1.3.
  EXPECT_EQ(sd["model.2.m.0.cv1.conv.weight"].sizes(), (Shape{8, 16, 3, 3}));
  EXPECT_EQ(sd["model.2.cv2.conv.weight"].sizes(), (Shape{64, 48, 1, 1}));
  EXPECT_EQ(sd["model.6.m.0.cv1.conv.weight"].sizes(), (Shape{32, 64, 1, 1}));
  EXPECT_EQ(sd["model.6.m.0.m.1.cv1.conv.weight"].sizes(), (Shape{32, 32, 3, 3}));
  EXPECT_EQ(sd["model.8.cv2.conv.weight"].sizes(), (Shape{256, 384, 1, 1}));
  EXPECT_EQ(sd["model.9.cv2.conv.weight"].sizes(), (Shape{256, 512, 1, 1}));
  EXPECT_EQ(sd["model.10.m.0.attn.qkv.conv.weight"].sizes(), (Shape{256, 128, 1, 1}));
  EXPECT_EQ(sd["model.10.m.0.attn.pe.conv.weight"].sizes(), (Shape{128, 1, 3, 3}));
  EXPECT_EQ(sd["model.23.cv3.0.0.0.conv.weight"].sizes(), (Shape{64, 1, 3, 3}));
  EXPECT_EQ(sd["model.23.cv3.0.2.weight"].sizes(), (Shape{80, 80, 1, 1}));
  EXPECT_EQ(sd["model.23.cv2.0.2.weight"].sizes(), (Shape{64, 64, 1, 1}));
  // Frozen DFL weights 0..15.
  Tensor dfl = sd["model.23.dfl.conv.weight"];
  EXPECT_EQ(dfl.sizes(), (Shape{1, 16, 1, 1}));
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(values(dfl.flatten())[i], static_cast<double>(i));
  EXPECT_FALSE(model.detect->dfl->conv->parameter("weight").requires_grad());
  // BN settings of the whole model.
  for (auto& [name, m] : model.named_modules()) {
    if (auto* bn = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      EXPECT_DOUBLE_EQ(bn->eps, 1e-3) << name;
      EXPECT_DOUBLE_EQ(*bn->momentum, 0.03) << name;
    }
  }
  // Scales m/l/x force c3k (a C3k inside layer 2), n/s keep the yaml's False there.
  EXPECT_TRUE(state_of(Yolo11("m", 2)).count("model.2.m.0.m.0.cv1.conv.weight"));
  EXPECT_EQ(Yolo11("l", 2).layers()[2].n, 2);
}

TEST(YoloModel, BiasInit) {
  Yolo11 model("n", 80);
  const std::vector<double> strides{8, 16, 32};
  EXPECT_EQ(model.detect->stride, strides);
  auto sd = state_of(model);
  for (int i = 0; i < 3; ++i) {
    for (double b : values(sd[fmt::format("model.23.cv2.{}.2.bias", i)])) EXPECT_EQ(b, 1.0);
    const double expect = std::log(5.0 / 80.0 / std::pow(640.0 / strides[i], 2));
    for (double b : values(sd[fmt::format("model.23.cv3.{}.2.bias", i)])) EXPECT_NEAR(b, expect, 1e-5);
  }
  EXPECT_NEAR(std::log(5.0 / 80.0 / std::pow(80.0, 2)), -11.54, 0.01);  // the sheet's P3 value
}

TEST(YoloModel, TrainModeReturnsRawMaps) {
  Yolo11 model("n", 5);
  Tensor x = uniform({2, 3, 64, 96}, 0, 1, kFloat32, 1);
  std::vector<Tensor> maps = model.forward_maps(x);
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_EQ(maps[0].sizes(), (Shape{2, 69, 8, 12}));
  EXPECT_EQ(maps[1].sizes(), (Shape{2, 69, 4, 6}));
  EXPECT_EQ(maps[2].sizes(), (Shape{2, 69, 2, 3}));
  Tensor flat = model.forward(x);  // training: flattened maps
  EXPECT_EQ(flat.sizes(), (Shape{2, 69, 96 + 24 + 6}));
  // Backward reaches every trainable parameter.
  flat.sum().backward();
  for (auto& [name, p] : model.named_parameters()) {
    if (p.requires_grad())
      EXPECT_TRUE(p.grad().defined()) << name;
    else
      EXPECT_FALSE(p.grad().defined()) << name;
  }
}

TEST(YoloModel, EvalDecodeMatchesPerAnchorComputation) {
  Yolo11 model("n", 3);
  model.eval();
  Tensor x = uniform({1, 3, 64, 32}, 0, 1, kFloat32, 2);
  Tensor out = model.forward(x);
  ASSERT_EQ(out.sizes(), (Shape{1, 7, 32 + 8 + 2}));
  std::vector<Tensor> maps = model.forward_maps(x);
  // Anchors in order P3 (8x4), P4 (4x2), P5 (2x1), rows outer.
  std::vector<double> o = values(out.to(kFloat64));
  const int64_t A = 42;
  int64_t a = 0;
  for (int lvl = 0; lvl < 3; ++lvl) {
    Tensor m = maps[lvl].to(kFloat64);
    const double s = 8 << lvl;
    for (int64_t y = 0; y < m.size(2); ++y) {
      for (int64_t xg = 0; xg < m.size(3); ++xg, ++a) {
        std::vector<double> v = values(m.select(0, 0).select(1, y).select(1, xg));  // 67 channels
        double d[4];
        for (int side = 0; side < 4; ++side) {
          double mx = -1e300, z = 0, e = 0;
          for (int i = 0; i < 16; ++i) mx = std::max(mx, v[side * 16 + i]);
          for (int i = 0; i < 16; ++i) {
            double p = std::exp(v[side * 16 + i] - mx);
            z += p;
            e += i * p;
          }
          d[side] = e / z;
        }
        const double ax = xg + 0.5, ay = y + 0.5;
        const double want[4] = {(ax + (d[2] - d[0]) / 2) * s, (ay + (d[3] - d[1]) / 2) * s, (d[0] + d[2]) * s,
                                (d[1] + d[3]) * s};
        for (int k = 0; k < 4; ++k) EXPECT_NEAR(o[k * A + a], want[k], 1e-3 * s) << "anchor " << a << " k " << k;
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(o[(4 + c) * A + a], 1.0 / (1.0 + std::exp(-v[64 + c])), 1e-5);
      }
    }
  }
  EXPECT_EQ(a, A);
}

TEST(YoloModel, ZeroBatchAndNonContiguousInput) {
  Yolo11 model("n", 4);
  model.eval();
  EXPECT_EQ(model.forward(zeros({0, 3, 64, 32})).sizes(), (Shape{0, 8, 42}));
  // A transposed (non-contiguous) input gives the same result as its contiguous copy.
  Tensor x = uniform({1, 3, 32, 64}, 0, 1, kFloat32, 3).transpose(2, 3);
  ASSERT_FALSE(x.is_contiguous());
  EXPECT_TRUE(close(model.forward(x), model.forward(x.contiguous()), 1e-6, 1e-6));
}

TEST(YoloModel, BlockGradientsByFiniteDifferences) {
  // Attention (dim 8, 2 heads: key_dim 2, head_dim 4) and PSABlock in float64, training-mode BN.
  auto attn = std::make_shared<PSABlock>(8, 0.5, 2);
  attn->to(kFloat64);
  Tensor x = uniform({2, 8, 2, 3}, -1, 1, kFloat64, 4).requires_grad_(true);
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return attn->forward(in[0]); }, {x}));
  // DFL expectation over 16 bins and the full decode of Detect on small maps.
  auto head = std::make_shared<Detect>(2, std::vector<int64_t>{4, 8}, 16);
  head->to(kFloat64);
  head->stride = {8, 16};
  Tensor d = uniform({1, 64, 5}, -2, 2, kFloat64, 5).requires_grad_(true);
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return head->dfl->forward(in[0]); }, {d}));
  Tensor m0 = uniform({1, 66, 2, 2}, -2, 2, kFloat64, 6).requires_grad_(true);
  Tensor m1 = uniform({1, 66, 1, 1}, -2, 2, kFloat64, 7).requires_grad_(true);
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return head->decode(in); }, {m0, m1}));
}

// Children replaced by name (nn::Module::replace_module, Python's `conv.act = nn.ReLU()`) are what Conv runs:
// in training (BN with batch statistics) and in evaluation without autograd (BN folded into the convolution).
TEST(YoloModel, ConvRunsReplacedChildren) {
  manual_seed(11);
  Conv block(3, 4, 3, 1);
  block.replace_module("act", std::make_shared<nn::ReLU>());
  Tensor x = randn({2, 3, 6, 6});
  for (bool training : {true, false}) {
    block.train(training);
    NoGradGuard no_grad;  // in evaluation: the folded path
    const Tensor want = relu(block.bn()->forward(block.conv()->forward(x)));  // training: batch statistics
    const Tensor got = block.forward(x);
    EXPECT_TRUE(allclose(got, want, 1e-5, 1e-5)) << "training " << training;
    EXPECT_GT(got.min().item<float>(), -1e-6) << "the replacement ReLU ran";
  }
  // A replacement convolution with a bias is folded with it.
  auto biased = std::make_shared<nn::Conv2d>(3, 4, 3, 1, 1, 1, 1, /*bias=*/true);
  block.replace_module("conv", biased);
  block.eval();
  NoGradGuard no_grad;
  EXPECT_TRUE(allclose(block.forward(x), relu(block.bn()->forward(biased->forward(x))), 1e-5, 1e-5));
}

TEST(YoloModel, InputErrors) {
  Yolo11 model("n", 80);
  EXPECT_THROW(model.forward(zeros({1, 3, 64, 48})), ValueError);
  EXPECT_THROW(model.forward(zeros({1, 3, 40, 64})), ValueError);
  EXPECT_THROW(model.forward(zeros({1, 1, 64, 64})), ShapeError);
  EXPECT_THROW(model.forward(zeros({3, 64, 64})), ShapeError);
  EXPECT_THROW(Yolo11("q", 80), ValueError);
  EXPECT_THROW(Yolo11("n", 0), ValueError);
  EXPECT_THROW(summary(model, 100), ValueError);
}

TEST(YoloModel, SummaryGflops) {
  Yolo11 model("n", 80);
  ModelSummary s = summary(model, 640);
  EXPECT_EQ(s.params, 2624080);
  EXPECT_EQ(s.trainable, 2624064);
  EXPECT_NEAR(s.gflops, 6.48, 0.01);
  // Sheet table 1.2, GF column (3 decimals).
  const std::vector<double> gf{0.088, 0.236, 0.328, 0.472, 0.328, 0.472, 0.275, 0.236, 0.275, 0.131, 0.198, 0,
                               0,     0.354, 0,     0,     0.406, 0.118, 0,     0.275, 0.118, 0,     0.301, 1.869};
  ASSERT_EQ(s.layers.size(), 24u);
  for (size_t i = 0; i < 24; ++i) {
    EXPECT_NEAR(s.layers[i].gflops, gf[i], 0.0006) << "layer " << i;
    EXPECT_EQ(s.layers[i].params, count((*model.model)[static_cast<int64_t>(i)]->parameters()));
  }
  EXPECT_EQ(s.layers[12].from, (std::vector<int64_t>{-1, 6}));
  EXPECT_EQ(s.layers[23].module, "Detect");
  EXPECT_EQ(s.layers[2].args, "[32, 64, 1, False, 0.25]");
  EXPECT_NE(s.table().find("2,624,080 parameters"), std::string::npos);
  // FLOPs scale with the pixel count.
  EXPECT_NEAR(summary(model, 320).gflops * 4, s.gflops, 1e-6);
  // Sheet section 3, conv-only recount of the other scales.
  const std::vector<std::pair<std::string, double>> totals{{"s", 21.47}, {"m", 67.98}, {"l", 86.91}, {"x", 194.90}};
  for (auto& [scale, g] : totals) {
    Yolo11 m(scale, 80);
    EXPECT_NEAR(summary(m, 640).gflops, g, 0.01) << scale;
  }
}

}  // namespace
}  // namespace adept::testing
