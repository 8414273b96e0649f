// nn::Module and the layer classes from C++: registration, traversal order, state_dict, strict
// loading errors, in-place to(), freezing, train/eval, containers, repr and layer forwards.
#include <gtest/gtest.h>

#include <cmath>

#include "adept/adept.h"
#include "gradcheck.h"
#include "test_util.h"

namespace adept::testing {
namespace {

using namespace adept::nn;

/// A small model: fc (Linear 4->3), bn (BatchNorm1d 3), head (Sequential(ReLU, Linear 3->2)),
/// a buffer `scale` and a non-persistent buffer `tmp`.
class Net : public Module {
 public:
  Net() : Module("Net") {
    fc = register_module("fc", std::make_shared<Linear>(4, 3));
    bn = register_module("bn", std::make_shared<BatchNorm1d>(3));
    head = register_module("head", std::make_shared<Sequential>(
                                       std::vector<ModulePtr>{std::make_shared<ReLU>(), std::make_shared<Linear>(3, 2)}));
    register_buffer("scale", ones({2}));
    register_buffer("tmp", zeros({1}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) override { return head->forward(bn->forward(fc->forward(x))) * buffer("scale"); }
  std::shared_ptr<Linear> fc;
  std::shared_ptr<BatchNorm1d> bn;
  std::shared_ptr<Sequential> head;
};

std::vector<std::string> names_of(const std::vector<std::pair<std::string, Tensor>>& v) {
  std::vector<std::string> out;
  for (auto& [n, t] : v) out.push_back(n);
  return out;
}

TEST(Module, RegistrationAndTraversalOrder) {
  auto net = std::make_shared<Net>();
  EXPECT_EQ(names_of(net->named_parameters()),
            (std::vector<std::string>{"fc.weight", "fc.bias", "bn.weight", "bn.bias", "head.1.weight", "head.1.bias"}));
  EXPECT_EQ(names_of(net->named_buffers()),
            (std::vector<std::string>{"scale", "tmp", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
  EXPECT_EQ(net->parameters(false).size(), 0u);
  std::vector<std::string> mods;
  for (auto& [n, m] : net->named_modules()) mods.push_back(n + ":" + m->type_name());
  EXPECT_EQ(mods, (std::vector<std::string>{":Net", "fc:Linear", "bn:BatchNorm1d", "head:Sequential", "head.0:ReLU",
                                            "head.1:Linear"}));
  EXPECT_EQ(net->children().size(), 3u);
  EXPECT_EQ(net->modules().front().get(), net.get());
  // every parameter is a leaf that requires grad
  for (Tensor& p : net->parameters()) {
    EXPECT_TRUE(p.requires_grad());
    EXPECT_TRUE(p.is_leaf());
  }
}

TEST(Module, RegistrationErrors) {
  Module m;
  m.register_parameter("w", zeros({2}));
  EXPECT_THROW(m.register_buffer("w", zeros({2})), ValueError);
  EXPECT_THROW(m.register_parameter("a.b", zeros({2})), ValueError);
  EXPECT_THROW(m.register_parameter("", zeros({2})), ValueError);
  EXPECT_THROW(m.register_module("w", std::make_shared<ReLU>()), ValueError);
  EXPECT_THROW(m.parameter("missing"), ValueError);
  EXPECT_THROW(m.forward(zeros({1})), Error);
  // re-registering a parameter replaces it in place (same position)
  m.register_parameter("v", zeros({1}));
  m.register_parameter("w", ones({3}));
  EXPECT_EQ(names_of(m.named_parameters()), (std::vector<std::string>{"w", "v"}));
  EXPECT_EQ(m.parameter("w").numel(), 3);
  EXPECT_TRUE(m.unregister("w"));
  EXPECT_FALSE(m.has_parameter("w"));
  // an absent parameter is skipped
  m.register_parameter("bias", Tensor());
  EXPECT_EQ(m.parameters().size(), 1u);
  EXPECT_EQ(m.state_dict().size(), 1u);
}

TEST(Module, SharedParametersAndModulesListedOnce) {
  auto lin = std::make_shared<Linear>(2, 2);
  Sequential seq(std::vector<ModulePtr>{lin, lin});
  EXPECT_EQ(seq.parameters().size(), 2u);
  EXPECT_EQ(seq.modules().size(), 2u);  // seq and lin
  EXPECT_EQ(seq.state_dict().size(), 4u);  // state_dict lists both names, as torch
}

TEST(Module, StateDictSharesStorageAndSkipsNonPersistent) {
  auto net = std::make_shared<Net>();
  StateDict sd = net->state_dict();
  EXPECT_EQ(names_of(sd), (std::vector<std::string>{"scale", "fc.weight", "fc.bias", "bn.weight", "bn.bias",
                                                    "bn.running_mean", "bn.running_var", "bn.num_batches_tracked",
                                                    "head.1.weight", "head.1.bias"}));
  EXPECT_EQ(sd[1].second.data_ptr(), net->fc->parameter("weight").data_ptr());
  EXPECT_FALSE(sd[1].second.requires_grad());
  EXPECT_EQ(sd[7].second.dtype(), kInt64);
  EXPECT_EQ(sd[7].second.dim(), 0);
  EXPECT_EQ(net->state_dict("model")[0].first, "model.scale");
}

TEST(Module, LoadStateDictRoundTrip) {
  manual_seed(1);
  auto a = std::make_shared<Net>();
  auto b = std::make_shared<Net>();
  StateDict sd;
  for (auto& [k, t] : a->state_dict()) sd.emplace_back(k, t.clone());
  Tensor before = b->fc->parameter("weight");
  LoadStateDictResult r = b->load_state_dict(sd);
  EXPECT_TRUE(r.missing_keys.empty());
  EXPECT_TRUE(r.unexpected_keys.empty());
  EXPECT_TRUE(before.is_same(b->fc->parameter("weight")));  // copied in place
  for (auto& [k, t] : b->state_dict()) {
    auto it = std::find_if(sd.begin(), sd.end(), [&](auto& e) { return e.first == k; });
    EXPECT_TRUE(close(t, it->second, 0, 0)) << k;
  }
  Tensor x = uniform({5, 4}, -1, 1, kFloat32, 3);
  a->eval();
  b->eval();
  EXPECT_TRUE(close(a->forward(x), b->forward(x), 0, 0));
  EXPECT_TRUE(b->fc->parameter("weight").requires_grad());
  // float64 values are cast to the module's float32
  StateDict d64{{"fc.weight", ones({3, 4}, kFloat64)}};
  b->load_state_dict(d64, false);
  EXPECT_EQ(b->fc->parameter("weight").dtype(), kFloat32);
  EXPECT_EQ(values(b->fc->parameter("weight"))[0], 1.0);
}

TEST(Module, LoadStateDictStrictErrorListsEverything) {
  auto net = std::make_shared<Net>();
  StateDict sd = net->state_dict();
  sd.erase(sd.begin() + 2);  // fc.bias missing
  sd.erase(sd.begin());      // scale missing
  sd.emplace_back("extra.weight", zeros({1}));
  sd[0].second = zeros({5, 4});  // fc.weight mismatched
  try {
    net->load_state_dict(sd);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Error(s) in loading state_dict for Net:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Missing key(s) in state_dict: \"scale\", \"fc.bias\". "), std::string::npos) << msg;
    EXPECT_NE(msg.find("Unexpected key(s) in state_dict: \"extra.weight\". "), std::string::npos) << msg;
    EXPECT_NE(msg.find("size mismatch for fc.weight: copying a param with shape [5, 4] from checkpoint, the shape in "
                       "current model is [3, 4]."), std::string::npos) << msg;
  }
  // non-strict: missing/unexpected are returned, the size mismatch still raises
  EXPECT_THROW(net->load_state_dict(sd, false), Error);
  sd[0].second = zeros({3, 4});
  LoadStateDictResult r = net->load_state_dict(sd, false);
  EXPECT_EQ(r.missing_keys, (std::vector<std::string>{"scale", "fc.bias"}));
  EXPECT_EQ(r.unexpected_keys, (std::vector<std::string>{"extra.weight"}));
  EXPECT_EQ(values(net->fc->parameter("weight"))[0], 0.0);
}

TEST(Module, ToDtypeKeepsHandleIdentity) {
  auto net = std::make_shared<Net>();
  std::vector<Tensor> params = net->parameters();  // as an optimizer would hold them
  Tensor nbt = net->bn->buffer("num_batches_tracked");
  Tensor x = uniform({3, 4}, -1, 1, kFloat32);
  net->forward(x).sum().backward();
  net->to(kFloat64);
  for (Tensor& p : params) {
    EXPECT_EQ(p.dtype(), kFloat64);
    EXPECT_TRUE(p.requires_grad());
    EXPECT_TRUE(p.is_leaf());
    EXPECT_EQ(p.grad().dtype(), kFloat64);
  }
  EXPECT_TRUE(params[0].is_same(net->fc->parameter("weight")));
  EXPECT_EQ(nbt.dtype(), kInt64);  // integer buffers keep their dtype
  EXPECT_EQ(net->buffer("scale").dtype(), kFloat64);
  // the moved parameters still train: gradients flow into the same handles
  net->zero_grad();
  EXPECT_FALSE(params[0].grad().defined());
  net->forward(x.to(kFloat64)).sum().backward();
  EXPECT_TRUE(params[0].grad().defined());
  EXPECT_EQ(params[0].grad().dtype(), kFloat64);
  EXPECT_THROW(net->to(kInt64), DtypeError);
  net->to(kCPU);
  EXPECT_TRUE(params[0].device().is_cpu());
}

TEST(Module, SetDataReplacesDataKeepingHandleAndAutogradState) {
  Linear lin(3, 2);
  Tensor w = lin.parameter("weight");
  set_data(w, zeros({4, 3}, TensorOptions(kFloat64)));
  EXPECT_TRUE(w.is_same(lin.parameter("weight")));
  EXPECT_EQ(w.sizes(), (Shape{4, 3}));
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.sum().item<double>(), 0.0);
  EXPECT_THROW(set_data(w, Tensor()), ValueError);
}

TEST(Module, ZeroGradToZerosAndFreezing) {
  Linear lin(3, 2);
  Tensor x = uniform({4, 3}, -1, 1, kFloat32);
  lin.forward(x).sum().backward();
  lin.zero_grad(false);
  ASSERT_TRUE(lin.parameter("weight").grad().defined());
  for (double v : values(lin.parameter("weight").grad())) EXPECT_EQ(v, 0.0);
  lin.requires_grad_(false);
  for (Tensor& p : lin.parameters()) EXPECT_FALSE(p.requires_grad());
  EXPECT_FALSE(lin.forward(x).requires_grad());
  lin.requires_grad_(true);
  EXPECT_TRUE(lin.forward(x).requires_grad());
}

TEST(Module, TrainEvalPropagatesAndApply) {
  auto net = std::make_shared<Net>();
  net->eval();
  for (auto& m : net->modules()) EXPECT_FALSE(m->is_training()) << m->type_name();
  net->train();
  for (auto& m : net->modules()) EXPECT_TRUE(m->is_training());
  std::vector<std::string> order;
  net->apply([&](Module& m) { order.push_back(m.type_name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Linear", "BatchNorm1d", "ReLU", "Linear", "Sequential", "Net"}));
}

TEST(Module, ReprNestedLikeTorch) {
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->repr(),
            "Net(\n"
            "  (fc): Linear(in_features=4, out_features=3, bias=True)\n"
            "  (bn): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  (head): Sequential(\n"
            "    (0): ReLU()\n"
            "    (1): Linear(in_features=3, out_features=2, bias=True)\n"
            "  )\n"
            ")");
  EXPECT_EQ(Conv2d(3, 16, 3, 2, 1, 1, 1, false).repr(),
            "Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)");
  EXPECT_EQ(Conv2d(3, 4, {3, 5}, 1, "same").repr(), "Conv2d(3, 4, kernel_size=(3, 5), stride=(1, 1), padding=same)");
  EXPECT_EQ(MaxPool2d(2).repr(), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(MaxPool2d(PoolSize(2, 3)).repr(), "MaxPool2d(kernel_size=(2, 3), stride=(2, 3), padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(BatchNorm2d(8, 1e-3, std::nullopt).repr(),
            "BatchNorm2d(8, eps=0.001, momentum=None, affine=True, track_running_stats=True)");
  EXPECT_EQ(LayerNorm({4}).repr(), "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(Dropout().repr(), "Dropout(p=0.5, inplace=False)");
  EXPECT_EQ(Upsample(std::nullopt, std::vector<double>{2}).repr(), "Upsample(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(Sequential().repr(), "Sequential()");
}

TEST(Sequential, ForwardIndexingSlicing) {
  auto l1 = std::make_shared<Linear>(3, 4);
  auto act = std::make_shared<Tanh>();
  auto l2 = std::make_shared<Linear>(4, 2);
  Sequential seq(std::vector<ModulePtr>{l1, act, l2});
  Tensor x = uniform({5, 3}, -1, 1, kFloat32);
  EXPECT_TRUE(close(seq.forward(x), l2->forward(act->forward(l1->forward(x))), 0, 0));
  EXPECT_EQ(seq.size(), 3);
  EXPECT_EQ(seq[-1].get(), l2.get());
  EXPECT_EQ(seq[0].get(), l1.get());
  EXPECT_THROW(seq[3], IndexError);
  EXPECT_THROW(seq[-4], IndexError);
  auto tail = seq.slice(1, std::nullopt);
  EXPECT_EQ(tail->size(), 2);
  EXPECT_EQ(tail->named_children()[0].first, "1");  // slices keep the names, as torch
  auto rev = seq.slice(std::nullopt, std::nullopt, -1);
  EXPECT_EQ((*rev)[0].get(), l2.get());
  EXPECT_THROW(seq.slice(0, 2, 0), ValueError);
  seq.append(std::make_shared<ReLU>());
  EXPECT_EQ(seq.named_children().back().first, "3");
  seq.erase(0);  // renumbers the rest "0", "1", ... (torch 1.13's __delitem__)
  EXPECT_EQ(seq.size(), 3);
  EXPECT_EQ(seq.named_children().front().first, "0");
  EXPECT_EQ(seq.named_children().back().first, "2");
  EXPECT_EQ(seq[1].get(), l2.get());
  EXPECT_TRUE(close(Sequential().forward(x), x, 0, 0));
}

TEST(Sequential, ModuleListAndDict) {
  ModuleList list;
  list.append(std::make_shared<ReLU>()).append(std::make_shared<Tanh>());
  list.insert(1, std::make_shared<Sigmoid>());
  list.insert(-100, std::make_shared<Identity>());
  std::vector<std::string> seen;
  for (auto& [n, m] : list.named_children()) seen.push_back(n + ":" + m->type_name());
  EXPECT_EQ(seen, (std::vector<std::string>{"0:Identity", "1:ReLU", "2:Sigmoid", "3:Tanh"}));
  EXPECT_EQ(list[-1]->type_name(), "Tanh");
  EXPECT_EQ(list.slice(1, 3)->size(), 2);
  list.erase(0);
  EXPECT_EQ(list[0]->type_name(), "ReLU");
  EXPECT_THROW(list.forward(zeros({1})), Error);

  ModuleDict dict;
  dict.set("b", std::make_shared<Linear>(1, 1));
  dict.set("a", std::make_shared<ReLU>());
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"b", "a"}));
  dict.set("b", std::make_shared<Tanh>());  // replacing keeps the position
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(dict["b"]->type_name(), "Tanh");
  EXPECT_TRUE(dict.contains("a"));
  EXPECT_EQ(dict.pop("a")->type_name(), "ReLU");
  EXPECT_EQ(dict.size(), 1);
  EXPECT_THROW(dict["zzz"], ValueError);
}

TEST(LinearModule, ForwardDefaultInitAndGradcheck) {
  manual_seed(0);
  Linear lin(50, 40);
  double bound = 1.0 / std::sqrt(50.0);
  auto w = values(lin.parameter("weight"));
  double lo = 1, hi = -1;
  for (double v : w) { lo = std::min(lo, v); hi = std::max(hi, v); }
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_LT(lo, -0.9 * bound);  // actually spread over the range
  EXPECT_GT(hi, 0.9 * bound);
  manual_seed(0);
  Linear again(50, 40);
  EXPECT_TRUE(close(again.parameter("weight"), lin.parameter("weight"), 0, 0));  // manual_seed reproduces init
  Linear nobias(3, 2, false);
  EXPECT_FALSE(nobias.parameter("bias").defined());
  EXPECT_EQ(nobias.parameters().size(), 1u);

  Linear small(3, 2);
  small.to(kFloat64);
  Tensor x = uniform({4, 3}).transpose(0, 1).contiguous().transpose(0, 1);  // non-contiguous (4, 3)
  Tensor expect = x.matmul(small.parameter("weight").t()) + small.parameter("bias");
  EXPECT_TRUE(close(small.forward(x), expect));
  x.requires_grad_(true);
  EXPECT_TRUE(gradcheck([&](const std::vector<Tensor>& in) { return small.forward(in[0]); }, {x}));
  EXPECT_EQ(small.forward(zeros({0, 3}, kFloat64)).sizes(), (Shape{0, 2}));
}

TEST(BatchNormModule, RunningStatsUpdateThroughModule) {
  BatchNorm2d bn(3);
  Tensor x = uniform({4, 3, 2, 2}, -1, 3, kFloat32, 5);
  bn.forward(x);
  bn.forward(x);
  EXPECT_EQ(bn.buffer("num_batches_tracked").item<int64_t>(), 2);
  // running_mean = 0.19 * batch mean after two momentum-0.1 updates from 0
  Tensor mean = x.mean({0, 2, 3});
  EXPECT_TRUE(close(bn.buffer("running_mean"), mean * 0.19, 1e-5, 1e-6));
  bn.eval();
  Tensor y = bn.forward(x);
  EXPECT_EQ(bn.buffer("num_batches_tracked").item<int64_t>(), 2);  // eval does not count
  Tensor expect = (x - bn.buffer("running_mean").view({1, 3, 1, 1})) /
                  (bn.buffer("running_var").view({1, 3, 1, 1}) + 1e-5).sqrt();
  EXPECT_TRUE(close(y, expect, 1e-5, 1e-5));
  EXPECT_THROW(bn.forward(zeros({2, 3})), ValueError);

  BatchNorm2d cumulative(3, 1e-5, std::nullopt);  // momentum None: cumulative average
  cumulative.forward(x);
  cumulative.forward(x * 2);
  EXPECT_TRUE(close(cumulative.buffer("running_mean"), mean * 1.5, 1e-5, 1e-6));

  BatchNorm2d untracked(3, 1e-5, 0.1, false, false);
  EXPECT_EQ(untracked.parameters().size(), 0u);
  EXPECT_EQ(untracked.buffers().size(), 0u);
  untracked.eval();
  EXPECT_EQ(untracked.forward(x).sizes(), x.sizes());  // batch statistics without running stats
}

TEST(ConvModule, ShapesInitAndErrors) {
  manual_seed(3);
  Conv2d conv(4, 6, 3, 1, 1, 1, 2);
  EXPECT_EQ(conv.parameter("weight").sizes(), (Shape{6, 2, 3, 3}));
  double bound = 1.0 / std::sqrt(2.0 * 9.0);
  for (double v : values(conv.parameter("weight"))) EXPECT_LE(std::abs(v), bound);
  for (double v : values(conv.parameter("bias"))) EXPECT_LE(std::abs(v), bound);
  Tensor x = uniform({2, 4, 5, 5}, -1, 1, kFloat32);
  EXPECT_EQ(conv.forward(x).sizes(), (Shape{2, 6, 5, 5}));
  Conv2d same(4, 2, {3, 4}, 1, "same");
  EXPECT_EQ(same.forward(x).sizes(), (Shape{2, 2, 5, 5}));
  Conv2d reflect(4, 2, 3, 1, 1, 1, 1, true, "reflect");
  Tensor padded = adept::pad(x, {1, 1, 1, 1}, "reflect");
  EXPECT_TRUE(close(reflect.forward(x), functional::conv2d(padded, reflect.parameter("weight"),
                                                           reflect.parameter("bias")), 1e-5, 1e-5));
  EXPECT_THROW(Conv2d(3, 4, 3, 1, 0, 1, 2), ValueError);
  EXPECT_THROW(Conv2d(4, 4, 3, 2, "same"), ValueError);
  EXPECT_THROW(Conv2d(4, 4, 3, 1, "full"), ValueError);
  EXPECT_THROW(Conv2d(4, 4, 3, 1, 0, 1, 1, true, "mirror"), ValueError);

  ConvTranspose2d up(4, 3, 3, 2, 1, 1);
  EXPECT_EQ(up.parameter("weight").sizes(), (Shape{4, 3, 3, 3}));
  EXPECT_EQ(up.forward(x).sizes(), (Shape{2, 3, 10, 10}));
  EXPECT_EQ(ConvTranspose2d(4, 3, 3, 2, 1).forward(x, {10, 10}).sizes(), (Shape{2, 3, 10, 10}));
  EXPECT_THROW(ConvTranspose2d(4, 3, 3, 2, 1).forward(x, {12, 12}), ValueError);
}

TEST(LossModule, ForwardMatchesFunctionalAndBuffers) {
  Tensor logits = uniform({4, 3}, -2, 2, kFloat32, 1);
  Tensor target = I({0, 2, 1, 2});
  Tensor w = T({1, 2, 3});
  CrossEntropyLoss ce(w, -100, "sum", 0.1);
  EXPECT_TRUE(close(ce(logits, target), functional::cross_entropy(logits, target, w, -100, "sum", 0.1)));
  EXPECT_EQ(names_of(ce.state_dict()), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(CrossEntropyLoss().state_dict().size(), 0u);
  EXPECT_THROW(ce.forward(logits), Error);
  Tensor p = uniform({4, 3}, 0, 1, kFloat32, 2);
  EXPECT_TRUE(close(MSELoss()(logits, p), (logits - p).pow(2).mean()));
  EXPECT_TRUE(close(L1Loss("sum")(logits, p), (logits - p).abs().sum()));
  EXPECT_TRUE(close(BCEWithLogitsLoss()(logits, p), functional::binary_cross_entropy_with_logits(logits, p)));
  EXPECT_THROW(MSELoss("avg")(logits, p), ValueError);
}

TEST(NormModule, LayerNormGroupNormDefaults) {
  LayerNorm ln({3, 4});
  EXPECT_EQ(values(ln.parameter("weight")), std::vector<double>(12, 1.0));
  Tensor x = uniform({2, 3, 4}, -1, 1, kFloat32);
  Tensor y = ln.forward(x);
  EXPECT_TRUE(close(y.mean({1, 2}), zeros({2}), 0, 1e-5));
  EXPECT_THROW(GroupNorm(4, 6), ValueError);
  GroupNorm gn(2, 4);
  EXPECT_EQ(gn.forward(uniform({2, 4, 3, 3}, -1, 1, kFloat32)).sizes(), (Shape{2, 4, 3, 3}));
}

TEST(ActivationModule, ForwardMatchesOps) {
  Tensor x = uniform({3, 5}, -4, 4, kFloat32, 9);
  EXPECT_TRUE(close(ReLU()(x), relu(x), 0, 0));
  EXPECT_TRUE(close(LeakyReLU(0.2)(x), leaky_relu(x, 0.2), 0, 0));
  EXPECT_TRUE(close(Softmax(1)(x), softmax(x, 1), 0, 0));
  EXPECT_TRUE(close(Softmax()(x), softmax(x, 1), 0, 0));     // implicit dim 1 for 2-d
  EXPECT_TRUE(close(LogSoftmax()(x.select(0, 0)), log_softmax(x.select(0, 0), 0), 0, 0));  // and 0 for 1-d
  EXPECT_TRUE(close(Flatten()(zeros({2, 3, 4})), zeros({2, 12}), 0, 0));
  Dropout drop(0.5);
  drop.eval();
  EXPECT_TRUE(drop(x).is_same(x));
  EXPECT_THROW(Dropout(1.5), ValueError);
  EXPECT_EQ(Identity()(x).data_ptr(), x.data_ptr());
}

}  // namespace
}  // namespace adept::testing
