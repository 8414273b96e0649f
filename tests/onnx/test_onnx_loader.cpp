// The ONNX loader on hand-built models: malformed files and graphs, the one error listing every
// unsupported op and type, input checks naming the graph input, initializer registration (names, roles),
// opset-dependent handler choice, autograd through the graph, node names in op errors.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include <sys/stat.h>

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "adept/onnx.h"
#include "adept/ops.h"

namespace {

using adept::Tensor;

// A ModelProto under construction, default domain at `opset`.
struct ModelBuilder {
  onnx::ModelProto m;
  explicit ModelBuilder(int64_t opset = 13) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m.mutable_graph()->set_name("g");
  }
  onnx::GraphProto& g() { return *m.mutable_graph(); }
  void value(onnx::ValueInfoProto* v, const std::string& name, int elem, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    for (int64_t d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (d >= 0) dim->set_dim_value(d);
      else dim->set_dim_param("N");
    }
  }
  void input(const std::string& name, std::vector<int64_t> dims = {2, 3}, int elem = onnx::TensorProto::FLOAT) {
    value(g().add_input(), name, elem, dims);
  }
  void output(const std::string& name, int elem = onnx::TensorProto::FLOAT) {
    auto* v = g().add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                        const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return *n;
  }
  onnx::TensorProto& floats(const std::string& name, std::vector<float> v, std::vector<int64_t> dims) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float f : v) t->add_float_data(f);
    return *t;
  }
  onnx::TensorProto& ints(const std::string& name, std::vector<int64_t> v) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t i : v) t->add_int64_data(i);
    return *t;
  }
  std::string bytes() const { return m.SerializeAsString(); }
};

void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// y = x + bias.weight (a trainable parameter under a nested name)
ModelBuilder add_model() {
  ModelBuilder b;
  b.input("x");
  b.output("y");
  b.floats("bias.weight", {1, 2, 3, 4, 5, 6}, {2, 3});
  b.node("Add", {"x", "bias.weight"}, {"y"}, "add");
  return b;
}

template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return "";
}

TEST(OnnxLoad, TruncatedFileIsIOErrorNamingTheFile) {
  std::string data = add_model().bytes();
  std::filesystem::path path = std::filesystem::temp_directory_path() / "adept_truncated.onnx";
  std::ofstream(path, std::ios::binary) << data.substr(0, data.size() - 7);
  std::string msg = message_of<adept::IOError>([&] { adept::onnx::load(path.string()); });
  EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("not an ONNX model"), std::string::npos) << msg;
  std::filesystem::remove(path);
}

TEST(OnnxLoad, MissingFileAndGarbageAreIOErrors) {
  EXPECT_THROW(adept::onnx::load("/nonexistent/model.onnx"), adept::IOError);
  EXPECT_THROW(adept::onnx::load_bytes(std::string(100, '\xff')), adept::IOError);
  EXPECT_THROW(adept::onnx::load_bytes(""), adept::IOError);  // parses as an empty model: no graph
}

TEST(OnnxLoad, InitializerWithTooFewValuesIsIOErrorNamingIt) {
  ModelBuilder b = add_model();
  b.g().mutable_initializer(0)->mutable_float_data()->RemoveLast();
  std::string msg = message_of<adept::IOError>([&] { adept::onnx::load_bytes(b.bytes()); });
  EXPECT_NE(msg.find("bias.weight"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs 6 values"), std::string::npos) << msg;
}

// add_model() with bias.weight's six floats at byte 8 of `location` (written into `dir` when given).
ModelBuilder external_model(const std::string& location, const std::filesystem::path& dir = {}) {
  ModelBuilder b = add_model();
  auto* t = b.g().mutable_initializer(0);
  t->clear_float_data();
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair{"location", location}, {"offset", std::string("8")}, {"length", std::string("24")}}) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  if (!dir.empty()) {
    std::vector<float> values = {0, 0, 1, 2, 3, 4, 5, 6};  // 8 bytes of padding, then the data
    std::ofstream(dir / location, std::ios::binary).write(reinterpret_cast<const char*>(values.data()), 32);
  }
  return b;
}

TEST(OnnxLoad, ExternalDataIsReadNextToTheModelFile) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "adept_onnx_external";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "model.onnx", std::ios::binary) << external_model("weights.bin", dir).bytes();
  auto model = adept::onnx::load((dir / "model.onnx").string());
  Tensor y = model->forward(adept::zeros({2, 3}));
  EXPECT_TRUE(adept::equal(y, adept::tensor(std::vector<float>{1, 2, 3, 4, 5, 6}).reshape({2, 3})));
  // From bytes there is no folder to look in; a path leaving the folder is refused.
  std::string msg = message_of<adept::IOError>([&] { adept::onnx::load_bytes(external_model("weights.bin").bytes()); });
  EXPECT_NE(msg.find("external file"), std::string::npos) << msg;
  std::ofstream(dir / "escape.onnx", std::ios::binary) << external_model("../weights.bin").bytes();
  msg = message_of<adept::IOError>([&] { adept::onnx::load((dir / "escape.onnx").string()); });
  EXPECT_NE(msg.find("not a relative path inside"), std::string::npos) << msg;
  std::ofstream(dir / "missing.onnx", std::ios::binary) << external_model("nothing.bin").bytes();
  EXPECT_THROW(adept::onnx::load((dir / "missing.onnx").string()), adept::IOError);
  std::filesystem::remove_all(dir);
}

TEST(OnnxLoad, ExternalDataMustBeARegularFileWithNonNegativeOffsetAndLength) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "adept_onnx_external_special";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  external_model("weights.bin", dir);
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  // A folder (read as a huge stream before: std::bad_alloc) or a FIFO (blocked forever) is refused at once.
  for (const std::string location : {"sub", ".", "fifo"}) {
    std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << external_model(location).bytes();
    std::string msg = message_of<adept::IOError>([&] { adept::onnx::load((dir / "model.onnx").string()); });
    EXPECT_NE(msg.find("tensor 'bias.weight' names external data '" + location + "', which is not a regular file"),
              std::string::npos) << msg;
  }
  // Negative offsets and lengths are their own errors, not "(-64 bytes ...)" or "beyond the end".
  auto with = [&](const std::string& key, const std::string& value) {
    ModelBuilder b = external_model("weights.bin");
    for (auto& e : *b.g().mutable_initializer(0)->mutable_external_data())
      if (e.key() == key) e.set_value(value);
    std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << b.bytes();
    return message_of<adept::IOError>([&] { adept::onnx::load((dir / "model.onnx").string()); });
  };
  std::string msg = with("offset", "-8");
  EXPECT_NE(msg.find("tensor 'bias.weight' has a negative external-data offset (-8)"), std::string::npos) << msg;
  msg = with("length", "-64");
  EXPECT_NE(msg.find("tensor 'bias.weight' has a negative external-data length (-64)"), std::string::npos) << msg;
  msg = with("offset", "100");
  EXPECT_NE(msg.find("starts at offset 100, beyond the end"), std::string::npos) << msg;
  msg = with("offset", "9223372036854775800");  // offset + length would overflow
  EXPECT_NE(msg.find("beyond the end"), std::string::npos) << msg;
  msg = with("length", "4611686018427387904");
  EXPECT_NE(msg.find("(4611686018427387904 bytes at offset 8) lies beyond the end"), std::string::npos) << msg;
  // Not decimal integers as Python's int() reads them (std::stoll read "36abc" as 36), or past int64.
  for (const std::string bad : {"36abc", "", " ", "+", "0x10", "1__0", "_10", "10_", "1e3", "99999999999999999999"}) {
    msg = with("length", bad);
    EXPECT_NE(msg.find("has a malformed external-data length '" + bad + "' (expected a decimal integer)"),
              std::string::npos) << msg;
  }
  msg = with("offset", "8.0");
  EXPECT_NE(msg.find("malformed external-data offset '8.0'"), std::string::npos) << msg;
  // What int() accepts loads: surrounding whitespace, a sign, underscores between digits.
  for (const std::string good : {"+8", " 8", "8\n", "\t8 ", "0_8", "08"}) {
    ModelBuilder b = external_model("weights.bin");
    for (auto& e : *b.g().mutable_initializer(0)->mutable_external_data())
      if (e.key() == "offset") e.set_value(good);
    std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << b.bytes();
    EXPECT_NO_THROW(adept::onnx::load((dir / "model.onnx").string())) << good;
  }
  fs::remove_all(dir);
}

TEST(OnnxLoad, UnknownValueAndCycleAreIOErrors) {
  ModelBuilder b;
  b.input("x");
  b.output("y");
  b.node("Relu", {"nowhere"}, {"y"}, "r");
  std::string msg = message_of<adept::IOError>([&] { adept::onnx::load_bytes(b.bytes()); });
  EXPECT_NE(msg.find("'nowhere'"), std::string::npos) << msg;

  ModelBuilder c;
  c.input("x");
  c.output("y");
  c.node("Add", {"x", "b"}, {"a"});
  c.node("Relu", {"a"}, {"b"});
  c.node("Relu", {"a"}, {"y"});
  msg = message_of<adept::IOError>([&] { adept::onnx::load_bytes(c.bytes()); });
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
}

TEST(OnnxLoad, EveryUnsupportedOpAndTypeIsListedInOneError) {
  ModelBuilder b(17);
  b.input("x");
  b.output("y");
  b.node("FancyOp", {"x"}, {"a"}, "first");
  b.node("OtherOp", {"a"}, {"c"}, "second");
  auto& cast = b.node("Cast", {"c"}, {"d"}, "to_f8");
  set_int(cast, "to", 17);  // FLOAT8E4M3FN
  auto& custom = b.node("Thing", {"d"}, {"y"}, "custom");
  custom.set_domain("com.example");
  auto* f8 = b.g().add_initializer();
  f8->set_name("w8");
  f8->set_data_type(19);  // FLOAT8E5M2
  try {
    adept::onnx::load_bytes(b.bytes());
    FAIL() << "no UnsupportedError";
  } catch (const adept::onnx::UnsupportedError& e) {
    const auto& items = e.items();
    ASSERT_EQ(items.size(), 5u) << e.what();
    std::string msg = e.what();
    for (const char* s : {"FancyOp (opset 17) in 'first'", "OtherOp (opset 17) in 'second'", "FLOAT8E4M3FN",
                          "com.example::Thing", "FLOAT8E5M2"})
      EXPECT_NE(msg.find(s), std::string::npos) << s << " missing from: " << msg;
  }
}

TEST(OnnxForward, InputCountDtypeRankAndFixedDimsAreCheckedNamingTheInput) {
  auto model = adept::onnx::load_bytes(add_model().bytes());
  std::string msg = message_of<adept::ValueError>([&] { model->forward_all({}); });
  EXPECT_NE(msg.find("takes 1 input (x), got 0"), std::string::npos) << msg;
  msg = message_of<adept::DtypeError>([&] { model->forward(adept::zeros({2, 3}, adept::kInt64)); });
  EXPECT_NE(msg.find("'x' must be float32, got int64"), std::string::npos) << msg;
  msg = message_of<adept::ShapeError>([&] { model->forward(adept::zeros({6})); });
  EXPECT_NE(msg.find("'x' must have rank 2"), std::string::npos) << msg;
  msg = message_of<adept::ShapeError>([&] { model->forward(adept::zeros({2, 4})); });
  EXPECT_NE(msg.find("'x' must have shape [2, 3]"), std::string::npos) << msg;
}

TEST(OnnxForward, SymbolicDimsAcceptAnySize) {
  ModelBuilder b;
  b.input("x", {-1, 3});
  b.output("y");
  b.node("Relu", {"x"}, {"y"});
  auto model = adept::onnx::load_bytes(b.bytes());
  EXPECT_EQ(model->forward(adept::randn({5, 3})).sizes(), (adept::Shape{5, 3}));
}

TEST(OnnxModule, InitializersAreNestedParametersOrBuffersAndGradientsFlow) {
  ModelBuilder b;
  b.input("x", {2, 3});
  b.output("y");
  b.floats("layer.0.weight", {1, 2, 3, 4, 5, 6}, {2, 3});
  b.ints("shape", {3, 2});
  b.node("Mul", {"x", "layer.0.weight"}, {"m"});
  b.node("Reshape", {"m", "shape"}, {"y"});
  auto model = adept::onnx::load_bytes(b.bytes());
  auto params = model->named_parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].first, "layer.0.weight");
  auto buffers = model->named_buffers();
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(buffers[0].first, "shape");
  Tensor x = adept::randn({2, 3});
  Tensor y = model->forward(x);
  EXPECT_EQ(y.sizes(), (adept::Shape{3, 2}));
  y.sum().backward();
  EXPECT_TRUE(adept::allclose(params[0].second.grad(), x));
}

TEST(OnnxModule, OpErrorsNameTheNode) {
  ModelBuilder b;
  b.input("x", {2, 3});
  b.output("y");
  b.ints("shape", {4, 4});
  b.node("Reshape", {"x", "shape"}, {"y"}, "bad_reshape");
  auto model = adept::onnx::load_bytes(b.bytes());
  std::string msg = message_of<adept::Error>([&] { model->forward(adept::randn({2, 3})); });
  EXPECT_NE(msg.find("node 'bad_reshape' (Reshape)"), std::string::npos) << msg;
}

TEST(OnnxRegistry, SoftmaxFollowsTheModelsOpset) {
  // Before opset 13 Softmax coerces (2, 3, 4) to (2, 12) at axis 1; from 13 it normalizes axis -1.
  Tensor x = adept::randn({2, 3, 4});
  for (int64_t opset : {11, 13}) {
    ModelBuilder b(opset);
    b.input("x", {2, 3, 4});
    b.output("y");
    b.node("Softmax", {"x"}, {"y"});
    Tensor y = adept::onnx::load_bytes(b.bytes())->forward(x);
    Tensor want = opset < 13 ? adept::softmax(x.reshape({2, 12}), 1).reshape({2, 3, 4}) : adept::softmax(x, -1);
    EXPECT_TRUE(adept::allclose(y, want)) << "opset " << opset;
  }
}

}  // namespace

namespace {

void set_ints(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

TEST(OnnxModule, MalformedNodesAreTypedErrorsNotCrashes) {
  ModelBuilder pool;
  pool.input("x", {1, 1, 4, 4});
  pool.output("y");
  auto& mp = pool.node("MaxPool", {"x"}, {"y"}, "pool");
  set_ints(mp, "kernel_shape", {2, 2});
  set_ints(mp, "strides", {0, 1});
  auto m = adept::onnx::load_bytes(pool.bytes());
  EXPECT_THROW(m->forward(adept::randn({1, 1, 4, 4})), adept::ValueError);

  ModelBuilder cast;
  cast.input("x");
  cast.output("y");
  cast.node("Cast", {"x"}, {"y"}, "no_to");
  m = adept::onnx::load_bytes(cast.bytes());
  EXPECT_THROW(m->forward(adept::randn({2, 3})), adept::ValueError);

  ModelBuilder overwrite;
  overwrite.input("x");
  overwrite.output("x");
  overwrite.node("Relu", {"x"}, {"x"}, "in_place");
  EXPECT_THROW(adept::onnx::load_bytes(overwrite.bytes()), adept::IOError);
}

}  // namespace

namespace {

TEST(OnnxOps, SpaceToDepthThenDepthToSpaceDcrIsTheIdentity) {
  ModelBuilder b;
  b.input("x", {2, 3, 4, 6});
  b.output("y");
  set_int(b.node("SpaceToDepth", {"x"}, {"s"}), "blocksize", 2);
  set_int(b.node("DepthToSpace", {"s"}, {"y"}), "blocksize", 2);
  Tensor x = adept::randn({2, 3, 4, 6});
  EXPECT_TRUE(adept::equal(adept::onnx::load_bytes(b.bytes())->forward(x), x));
}

TEST(OnnxOps, CumSumExclusiveReverse) {
  ModelBuilder b;
  b.input("x", {4});
  b.output("y");
  b.ints("axis", {0});
  auto& n = b.node("CumSum", {"x", "axis"}, {"y"});
  set_int(n, "exclusive", 1);
  set_int(n, "reverse", 1);
  Tensor y = adept::onnx::load_bytes(b.bytes())->forward(adept::tensor(std::vector<float>{1, 2, 3, 4}));
  EXPECT_TRUE(adept::equal(y, adept::tensor(std::vector<float>{9, 7, 4, 0})));
}

}  // namespace

namespace {

// Inputs of a rank the op cannot take, found by the fuzzer (tests/onnx/fuzz) where they read out of bounds.
TEST(OnnxOps, FuzzerFoundRanksAreShapeErrors) {
  ModelBuilder gnd;
  gnd.input("data", {2, 2});
  gnd.input("indices", {});
  gnd.output("y");
  gnd.node("GatherND", {"data", "indices"}, {"y"});
  auto m = adept::onnx::load_bytes(gnd.bytes());
  EXPECT_THROW(m->forward_all({adept::randn({2, 2}), adept::zeros({})}), adept::ShapeError);

  // an empty K (the libFuzzer phase of scripts/test.sh): a typed error, not std::out_of_range
  ModelBuilder topk;
  topk.input("x", {3});
  topk.input("k", {0}, onnx::TensorProto::INT64);
  topk.output("values");
  topk.output("indices", onnx::TensorProto::INT64);
  topk.node("TopK", {"x", "k"}, {"values", "indices"});
  m = adept::onnx::load_bytes(topk.bytes());
  EXPECT_THROW(m->forward_all({adept::randn({3}), adept::zeros({0}, adept::kInt64)}), adept::ShapeError);

  ModelBuilder bn(15);
  bn.input("x", {4});
  bn.output("y");
  bn.floats("s", {1}, {1});
  bn.floats("b", {0}, {1});
  bn.floats("m", {0}, {1});
  bn.floats("v", {1}, {1});
  set_int(bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}), "training_mode", 1);
  m = adept::onnx::load_bytes(bn.bytes());
  EXPECT_THROW(m->forward(adept::randn({4})), adept::ShapeError);

  ModelBuilder ci(10);
  ci.input("x", {}, onnx::TensorProto::UINT8);
  ci.input("w", {1, 1, 1, 1}, onnx::TensorProto::UINT8);
  ci.output("y", onnx::TensorProto::INT32);
  auto* zp = ci.g().add_initializer();
  zp->set_name("x_zero_point");
  zp->set_data_type(onnx::TensorProto::UINT8);
  zp->add_dims(2);
  zp->add_int32_data(1);
  zp->add_int32_data(2);
  ci.node("ConvInteger", {"x", "w", "x_zero_point"}, {"y"});
  m = adept::onnx::load_bytes(ci.bytes());
  EXPECT_THROW(m->forward_all({adept::zeros({}, adept::kUInt8), adept::zeros({1, 1, 1, 1}, adept::kUInt8)}),
               adept::ShapeError);
}

}  // namespace

namespace {

// What QA found after the merge: Upsample's scales, training-mode BatchNormalization's saved_mean / saved_var
// outputs at opsets 9-13 (torch's export), and an empty batch through Resize.
TEST(OnnxOps, UpsampleOpset9ScalesInput) {
  ModelBuilder b(9);
  b.input("x", {1, 1, 2, 2});
  b.output("y");
  b.floats("scales", {1.f, 1.f, 2.f, 2.f}, {4});
  b.node("Upsample", {"x", "scales"}, {"y"});
  auto m = adept::onnx::load_bytes(b.bytes());
  Tensor x = adept::arange(4, adept::kFloat32).reshape({1, 1, 2, 2});
  for (int i = 0; i < 3; ++i) {
    Tensor y = m->forward(x);
    ASSERT_EQ(y.sizes(), (adept::Shape{1, 1, 4, 4}));
    Tensor want = adept::tensor(std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3});
    EXPECT_TRUE(adept::equal(y, want.reshape({1, 1, 4, 4})));
  }
}

// Only opsets 9 to 25 of the default domain are handled: an older or newer model is refused at load, naming
// its opset and the range (an opset-8 model used to load and run opset-9 handlers).
TEST(OnnxLoad, OpsetOutsideNineToTwentyFiveIsUnsupported) {
  for (int64_t opset : {1, 8, 26}) {
    ModelBuilder b(opset);
    b.input("x");
    b.output("y");
    b.node("Relu", {"x"}, {"y"});
    std::string msg = message_of<adept::onnx::UnsupportedError>([&] { adept::onnx::load_bytes(b.bytes()); });
    EXPECT_NE(msg.find(fmt::format("unsupported opset {} of the default domain (ai.onnx); the importer supports "
                                   "opsets 9 to 25", opset)),
              std::string::npos) << msg;
  }
  ModelBuilder ok(9);
  ok.input("x");
  ok.output("y");
  ok.node("Relu", {"x"}, {"y"});
  EXPECT_NO_THROW(adept::onnx::load_bytes(ok.bytes()));
}

// ONNX requires scales > 0: a zero scale gave an empty output. Scales known at load are checked then, others
// when the node runs; both ValueErrors name the node.
TEST(OnnxOps, ResizeWithAZeroOrNegativeScaleIsAValueErrorNamingTheNode) {
  for (float bad : {0.f, -2.f}) {
    ModelBuilder b(13);
    b.input("x", {1, 1, 2, 2});
    b.output("y");
    b.floats("scales", {1.f, 1.f, bad, 2.f}, {4});
    b.node("Resize", {"x", "", "scales"}, {"y"}, "up");
    std::string msg = message_of<adept::ValueError>([&] { adept::onnx::load_bytes(b.bytes()); });
    EXPECT_NE(msg.find("node 'up' (Resize): Resize: scales [1, 1, " + fmt::format("{}", bad) + ", 2] must be finite "
                       "and > 0"), std::string::npos) << msg;
    ModelBuilder d(13);
    d.input("x", {1, 1, 2, 2});
    d.input("scales", {4});
    d.output("y");
    d.node("Resize", {"x", "", "scales"}, {"y"}, "up");
    auto m = adept::onnx::load_bytes(d.bytes());
    msg = message_of<adept::ValueError>(
        [&] { m->forward_all({adept::ones({1, 1, 2, 2}), adept::tensor(std::vector<float>{1, 1, 2, bad})}); });
    EXPECT_NE(msg.find("node 'up' (Resize): Resize: scales"), std::string::npos) << msg;
  }
}

TEST(OnnxOps, BatchNormalizationOpset13SavedStatistics) {
  ModelBuilder b(13);
  b.input("x", {4, 2, 3});
  b.output("y");
  for (const char* o : {"rm", "rv", "saved_mean", "saved_var"}) b.output(o);
  b.floats("s", {1, 2}, {2});
  b.floats("b", {0, 1}, {2});
  b.floats("m", {0, 0}, {2});
  b.floats("v", {1, 1}, {2});
  b.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv", "saved_mean", "saved_var"});
  auto m = adept::onnx::load_bytes(b.bytes());
  Tensor x = adept::randn({4, 2, 3});
  std::vector<Tensor> out = m->forward_all({x});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TRUE(adept::allclose(out[3], adept::mean(x, {0, 2})));
  EXPECT_TRUE(adept::allclose(out[4], adept::var(x, {0, 2}, 0)));
}

// Node arity and attribute names are checked at load against ONNX's schema of the op at the model's opset
// (src/onnx/schemas.inc): they used to be ignored (ReduceMean-13 with an axes input reduced every axis,
// Relu with two outputs failed only at forward).
TEST(OnnxLoad, ArityAndAttributesOutsideTheOpsSchemaAreValueErrorsAtLoad) {
  auto expect_invalid = [](ModelBuilder& b, const std::string& want) {
    std::string msg = message_of<adept::ValueError>([&] { adept::onnx::load_bytes(b.bytes()); });
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  };
  {
    ModelBuilder b(17);  // the axes input exists from ReduceMean-18 on
    b.input("x", {2, 3});
    b.output("y");
    b.ints("axes", {1});
    b.node("ReduceMean", {"x", "axes"}, {"y"}, "mean");
    expect_invalid(b, "node 'mean' (ReduceMean): ReduceMean at opset 17 (ReduceMean-13) takes 1 input, got 2");
    b.m.mutable_opset_import(0)->set_version(18);
    Tensor x = adept::arange(6, adept::kFloat32).reshape({2, 3});
    Tensor y = adept::onnx::load_bytes(b.bytes())->forward(x);
    EXPECT_TRUE(adept::allclose(y, adept::mean(x, {1}, true)));
  }
  {
    ModelBuilder b(11);  // Squeeze takes axes as an input from opset 13
    b.input("x", {1, 3});
    b.output("y");
    b.ints("axes", {0});
    b.node("Squeeze", {"x", "axes"}, {"y"}, "sq");
    expect_invalid(b, "Squeeze at opset 11 (Squeeze-11) takes 1 input, got 2");
  }
  {
    ModelBuilder b(17);
    b.input("x");
    b.output("y");
    b.node("Relu", {"x", "x"}, {"y"}, "relu");
    expect_invalid(b, "node 'relu' (Relu): Relu at opset 17 (Relu-14) takes 1 input, got 2");
  }
  {
    ModelBuilder b(17);
    b.input("x");
    b.output("y");
    b.node("Relu", {"x"}, {"y", "z"}, "relu");
    expect_invalid(b, "Relu at opset 17 (Relu-14) has 1 output, got 2");
  }
  {
    ModelBuilder b(17);
    b.input("x");
    b.output("y");
    b.node("Add", {"x", "x", "x"}, {"y"}, "add");
    expect_invalid(b, "Add at opset 17 (Add-14) takes 2 inputs, got 3");
  }
  {
    ModelBuilder b(17);
    b.input("x");
    b.output("y");
    b.node("Conv", {"x"}, {"y"}, "conv");
    expect_invalid(b, "Conv at opset 17 (Conv-11) takes 2 to 3 inputs, got 1");
  }
  {
    ModelBuilder b(17);
    b.input("x");
    b.output("y");
    set_int(b.node("Softmax", {"x"}, {"y"}, "sm"), "axiz", 1);
    expect_invalid(b, "node 'sm' (Softmax): Softmax at opset 17 (Softmax-13) has no attribute 'axiz' (allowed: axis)");
    ModelBuilder r(17);
    r.input("x");
    r.output("y");
    set_int(r.node("Relu", {"x"}, {"y"}, "relu"), "alpha", 1);
    expect_invalid(r, "Relu at opset 17 (Relu-14) has no attribute 'alpha' (it takes no attributes)");
  }
  {
    // Variadic ops and trailing optional inputs and outputs within the schema load.
    ModelBuilder b(17);
    b.input("x");
    b.output("y");
    b.node("Sum", {"x", "x", "x", "x"}, {"s"});
    b.node("Dropout", {"s", "", ""}, {"y", ""});
    EXPECT_NO_THROW(adept::onnx::load_bytes(b.bytes()));
  }
}

// tf_crop_and_resize as ONNX's reference and onnxruntime compute it (values from onnx.reference): with scales the
// output is floor(input * scale), the roi left out (it was multiplied in: 6 x 6 instead of 12 x 9), and a source
// coordinate on an integer rounds as theirs (float32 roi arithmetic: nearest_mode ceil of row 1.0 is row 1).
TEST(OnnxOps, ResizeTfCropAndResizeFollowsTheReference) {
  auto model = [](const std::vector<float>& roi, bool scales, const std::string& mode) {
    ModelBuilder b(19);
    b.input("x", {1, 1, scales ? 6 : 4, scales ? 6 : 4});
    b.output("y");
    b.floats("roi", roi, {8});
    if (scales) b.floats("scales", {1.f, 1.f, 2.f, 1.5f}, {4});
    else b.ints("sizes", {1, 1, 7, 3});
    auto& n = b.node("Resize", {"x", "roi", scales ? "scales" : "", scales ? "" : "sizes"}, {"y"});
    while (n.input_size() && n.input(n.input_size() - 1).empty()) n.mutable_input()->RemoveLast();
    for (auto [k, v] : {std::pair<std::string, std::string>{"coordinate_transformation_mode", "tf_crop_and_resize"},
                        {"mode", mode}, {"nearest_mode", "ceil"}}) {
      auto* a = n.add_attribute();
      a->set_name(k);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(v);
    }
    auto* e = n.add_attribute();
    e->set_name("extrapolation_value");
    e->set_type(onnx::AttributeProto::FLOAT);
    e->set_f(-3.f);
    return adept::onnx::load_bytes(b.bytes());
  };
  Tensor y = model({0, 0, 0.1f, 0.2f, 1, 1, 0.6f, 0.9f}, true, "linear")
                 ->forward(adept::arange(36, adept::kFloat32).reshape({1, 1, 6, 6}));
  ASSERT_EQ(y.sizes(), (adept::Shape{1, 1, 12, 9}));
  Tensor first = adept::tensor(std::vector<float>{4, 4.4375f, 4.875f, 5.3125f, 5.75f, 6.1875f, 6.625f, 7.0625f, 7.5f});
  EXPECT_TRUE(adept::allclose(y.reshape({12, 9}).select(0, 0), first, 1e-5, 1e-5));
  Tensor last = adept::tensor(std::vector<float>{19, 19.4375f, 19.875f, 20.3125f, 20.75f, 21.1875f, 21.625f, 22.0625f, 22.5f});
  EXPECT_TRUE(adept::allclose(y.reshape({12, 9}).select(0, 11), last, 1e-5, 1e-5));
  y = model({0, 0, 0.1f, 0.2f, 1, 1, 0.8f, 1.1f}, false, "nearest")
          ->forward(adept::arange(16, adept::kFloat32).reshape({1, 1, 4, 4}));
  ASSERT_EQ(y.sizes(), (adept::Shape{1, 1, 7, 3}));
  Tensor want = adept::tensor(std::vector<float>{5, 6, -3, 5, 6, -3, 5, 6, -3, 9, 10, -3, 9, 10, -3, 13, 14, -3, 13, 14, -3});
  EXPECT_TRUE(adept::equal(y.reshape({21}), want)) << y;
  // An integer input stays integer; extrapolation_value is cast to it (0.5 -> 0), as the reference gives.
  ModelBuilder b(13);
  b.input("x", {3, 4}, onnx::TensorProto::INT32);
  b.output("y", onnx::TensorProto::INT32);
  b.floats("roi", {-0.3f, 0.1f, 0.8f, 1.2f}, {4});
  b.floats("scales", {1.f, 1.5f}, {2});
  auto& n = b.node("Resize", {"x", "roi", "scales"}, {"y"});
  for (auto [k, v] : {std::pair<std::string, std::string>{"coordinate_transformation_mode", "tf_crop_and_resize"},
                      {"mode", "nearest"}}) {
    auto* a = n.add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  auto* e = n.add_attribute();
  e->set_name("extrapolation_value");
  e->set_type(onnx::AttributeProto::FLOAT);
  e->set_f(0.5f);
  y = adept::onnx::load_bytes(b.bytes())->forward(adept::mul(adept::arange(1, 13, 1, adept::kInt32), 10).reshape({3, 4}));
  ASSERT_EQ(y.dtype(), adept::kInt32);
  want = adept::tensor(std::vector<int64_t>{0, 0, 0, 0, 0, 0, 10, 20, 30, 30, 40, 0, 90, 100, 110, 110, 120, 0}).to(adept::kInt32);
  EXPECT_TRUE(adept::equal(y.reshape({18}), want)) << y;
}

// A window one stride or less longer than the padded input leaves no output position: an empty output, as ONNX's
// reference and onnxruntime give (Adept raised ShapeError); longer still is a ShapeError naming the axis.
TEST(OnnxOps, PoolWindowPastThePaddedInputGivesAnEmptyOutput) {
  for (const std::string op : {"MaxPool", "AveragePool"}) {
    for (int64_t kernel : {5, 7}) {
      ModelBuilder b(19);
      b.input("x", {1, 2, 4, 7});
      b.output("y");
      auto& n = b.node(op, {"x"}, {"y"});
      set_ints(n, "kernel_shape", {kernel, 2});
      set_ints(n, "strides", {2, 2});
      if (kernel == 5) {
        Tensor y = adept::onnx::load_bytes(b.bytes())->forward(adept::randn({1, 2, 4, 7}));
        EXPECT_EQ(y.sizes(), (adept::Shape{1, 2, 0, 3})) << op;
      } else {
        std::string msg = message_of<adept::ShapeError>(
            [&] { adept::onnx::load_bytes(b.bytes())->forward(adept::randn({1, 2, 4, 7})); });
        EXPECT_NE(msg.find("the window (7) must fit the padded input, which is 4 on spatial axis 0"), std::string::npos)
            << msg;
      }
    }
    // ceil_mode: ceil((2 - 3) / 2) + 1 = 1 window over [1, 2] and one position past it (reference and
    // onnxruntime: max 2, average 1.5); ceil((4 - 7) / 3) + 1 = 0 positions.
    ModelBuilder b(18);
    b.input("x", {1, 1, 2});
    b.output("y");
    auto& n = b.node(op, {"x"}, {"y"});
    set_ints(n, "kernel_shape", {3});
    set_ints(n, "strides", {2});
    set_int(n, "ceil_mode", 1);
    Tensor y = adept::onnx::load_bytes(b.bytes())->forward(adept::tensor(std::vector<float>{1, 2}).reshape({1, 1, 2}));
    ASSERT_EQ(y.sizes(), (adept::Shape{1, 1, 1})) << op;
    EXPECT_FLOAT_EQ(y.item<float>(), op == "MaxPool" ? 2.f : 1.5f);
    ModelBuilder d(18);
    d.input("x", {1, 1, 4});
    d.output("y");
    auto& m = d.node(op, {"x"}, {"y"});
    set_ints(m, "kernel_shape", {4});
    set_ints(m, "strides", {3});
    set_ints(m, "dilations", {2});
    set_int(m, "ceil_mode", 1);
    if (op == "MaxPool") {
      y = adept::onnx::load_bytes(d.bytes())->forward(adept::randn({1, 1, 4}));
      EXPECT_EQ(y.sizes(), (adept::Shape{1, 1, 0}));
    }
  }
}

// Sign keeps NaN (ONNX's reference, onnxruntime; torch.sign gives 0); Range with delta pointing away from limit
// is empty (max(ceil((limit - start) / delta), 0) elements; torch's arange raises).
TEST(OnnxOps, SignKeepsNaNAndRangeAwayFromLimitIsEmpty) {
  ModelBuilder b(13);
  b.input("x", {4});
  b.output("y");
  b.node("Sign", {"x"}, {"y"});
  Tensor y = adept::onnx::load_bytes(b.bytes())->forward(adept::tensor(std::vector<float>{-2, 0, NAN, 3}));
  EXPECT_TRUE(adept::allclose(y, adept::tensor(std::vector<float>{-1, 0, NAN, 1}), 1e-5, 1e-8, true)) << y;
  for (auto [start, limit, delta, n] : {std::array<int64_t, 4>{0, 10, -1, 0}, {5, 5, 1, 0}, {10, 0, 3, 0}, {10, 0, -3, 4}}) {
    ModelBuilder r(13);
    r.output("y", onnx::TensorProto::INT64);
    r.ints("s", {start}).clear_dims();
    r.ints("l", {limit}).clear_dims();
    r.ints("d", {delta}).clear_dims();
    r.node("Range", {"s", "l", "d"}, {"y"});
    Tensor out = adept::onnx::load_bytes(r.bytes())->forward_all({}).at(0);
    EXPECT_EQ(out.sizes(), (adept::Shape{n})) << start << " " << limit << " " << delta;
    EXPECT_EQ(out.dtype(), adept::kInt64);
  }
  // limit - start past int64: counted in 128 bits (it came out empty).
  const int64_t q = int64_t{1} << 61;
  EXPECT_TRUE(adept::equal(adept::arange(-2 * q, 2 * q, q), adept::tensor(std::vector<int64_t>{-2 * q, -q, 0, q})));
  // A count past int64 is a ValueError (it wrapped to an empty tensor).
  EXPECT_THROW(adept::arange(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 1),
               adept::ValueError);
}

TEST(OnnxOps, ResizeKeepsAnEmptyBatchEmpty) {
  ModelBuilder b(13);
  b.input("x", {-1, 2, 3, 3});
  b.output("y");
  auto* s = b.g().add_initializer();
  s->set_name("scales");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_dims(4);
  for (float v : {1.f, 1.f, 2.f, 2.f}) s->add_float_data(v);
  b.node("Resize", {"x", "", "scales"}, {"y"});
  Tensor y = adept::onnx::load_bytes(b.bytes())->forward(adept::randn({0, 2, 3, 3}));
  EXPECT_EQ(y.sizes(), (adept::Shape{0, 2, 6, 6}));
}

}  // namespace

namespace {

// Names reach messages, state_dict keys and Python strings: invalid UTF-8 is refused at load (QA: Python's
// input_names raised UnicodeDecodeError, and an op's error message came out empty).
TEST(OnnxLoad, NamesThatAreNotUtf8AreIOErrors) {
  for (const std::string bad : {std::string("x\xff\xfe"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80")}) {
    ModelBuilder b;
    b.input(bad, {2});
    b.output("y");
    b.node("Relu", {bad}, {"y"});
    EXPECT_THROW(adept::onnx::load_bytes(b.bytes()), adept::IOError);
  }
  ModelBuilder ok;
  ok.input("x\xc3\xa9", {2});  // U+00E9
  ok.output("y");
  ok.node("Relu", {"x\xc3\xa9"}, {"y"});
  EXPECT_NO_THROW(adept::onnx::load_bytes(ok.bytes()));
}

}  // namespace

namespace {

// QA after the export merge: repeated axes, pools whose pads cover a window, 3-d Conv and an Einsum diagonal
// found only at the first forward, external data through symbolic links, and a module converted to float16.

// A model of `op` on x (rank 4, shape {2, 1, 3, 1}) at `opset` with int64 initializers `ints` (name, values).
ModelBuilder op_model(const std::string& op, int64_t opset, std::vector<std::string> inputs,
                      std::vector<std::pair<std::string, std::vector<int64_t>>> ints = {}) {
  ModelBuilder b(opset);
  b.input("x", {2, 1, 3, 1});
  b.output("y");
  for (auto& [name, values] : ints) b.ints(name, values);
  inputs.insert(inputs.begin(), "x");
  b.node(op, inputs, {"y"}, "the_" + op);
  return b;
}

// The ValueError of loading `b`, which must name the node, its op and the axes.
void expect_axes_error_at_load(const ModelBuilder& b, const std::string& op, const std::string& axes) {
  std::string msg = message_of<adept::ValueError>([&] { adept::onnx::load_bytes(b.bytes()); });
  EXPECT_NE(msg.find("node 'the_" + op + "' (" + op + "): " + op + ": axes " + axes), std::string::npos) << msg;
  EXPECT_NE(msg.find("distinct axes"), std::string::npos) << msg;
}

TEST(OnnxLoad, RepeatedAxesAreValueErrorsNamingTheNodeAtLoad) {
  // constant inputs (initializers)
  expect_axes_error_at_load(op_model("Unsqueeze", 13, {"axes"}, {{"axes", {1, 1}}}), "Unsqueeze", "[1, 1]");
  expect_axes_error_at_load(op_model("Squeeze", 13, {"axes"}, {{"axes", {3, 3}}}), "Squeeze", "[3, 3]");
  expect_axes_error_at_load(
      op_model("Slice", 13, {"starts", "ends", "axes"}, {{"starts", {0, 0}}, {"ends", {1, 1}}, {"axes", {2, 2}}}),
      "Slice", "[2, 2]");
  expect_axes_error_at_load(op_model("ReduceSum", 13, {"axes"}, {{"axes", {0, 0}}}), "ReduceSum", "[0, 0]");
  expect_axes_error_at_load(op_model("ReduceMax", 18, {"axes"}, {{"axes", {-1, -1}}}), "ReduceMax", "[-1, -1]");
  expect_axes_error_at_load(op_model("Pad", 18, {"pads", "", "axes"}, {{"pads", {1, 1, 1, 1}}, {"axes", {0, 0}}}),
                            "Pad", "[0, 0]");
  // a Constant node's output is known at load too
  ModelBuilder constant = op_model("Unsqueeze", 13, {"axes"});
  auto& c = constant.node("Constant", {}, {"axes"}, "axes_constant");
  auto* value = c.add_attribute();
  value->set_name("value_ints");
  value->set_type(onnx::AttributeProto::INTS);
  for (int64_t a : {0, 0}) value->add_ints(a);
  expect_axes_error_at_load(constant, "Unsqueeze", "[0, 0]");
  // attributes
  for (auto [op, opset] : {std::pair{"Unsqueeze", 11}, {"Squeeze", 11}, {"ReduceProd", 13}, {"Resize", 18}}) {
    ModelBuilder b = op_model(op, opset, {});
    set_ints(*b.g().mutable_node(0), "axes", {1, 1});
    expect_axes_error_at_load(b, op, "[1, 1]");
  }
  ModelBuilder slice9 = op_model("Slice", 9, {});
  for (const char* attr : {"starts", "ends", "axes"}) set_ints(*slice9.g().mutable_node(0), attr, {0, 0});
  expect_axes_error_at_load(slice9, "Slice", "[0, 0]");
}

TEST(OnnxForward, AxesThatRepeatOnceNormalizedAreValueErrorsNamingTheNode) {
  // [1, -3] is axis 1 twice at rank 4 (Unsqueeze: at the output's rank 4 + 2 = 6, [1, -5]): known only once
  // the input arrives. ReduceProd used to multiply axis 1 in twice, Slice to slice it twice, Unsqueeze to add
  // two axes.
  Tensor x = adept::randn({2, 1, 3, 1});
  std::vector<ModelBuilder> models = {
      op_model("Slice", 13, {"starts", "ends", "axes"}, {{"starts", {0, 0}}, {"ends", {1, 1}}, {"axes", {1, -3}}}),
      op_model("ReduceProd", 18, {"axes"}, {{"axes", {1, -3}}}),
      op_model("Squeeze", 13, {"axes"}, {{"axes", {1, -3}}}),
      op_model("Unsqueeze", 13, {"axes"}, {{"axes", {1, -5}}})};
  for (ModelBuilder& b : models) {
    auto m = adept::onnx::load_bytes(b.bytes());
    const std::string op = b.g().node(0).op_type();
    std::string msg = message_of<adept::ValueError>([&] { m->forward(x); });
    EXPECT_NE(msg.find("node 'the_" + op + "' (" + op + "): " + op + ": axes [1, -"), std::string::npos) << msg;
    EXPECT_NE(msg.find("name axis 1 twice"), std::string::npos) << msg;
  }
  // axes from a graph input (ReduceMean-18): at run time too
  ModelBuilder b(18);
  b.input("x", {2, 1, 3, 1});
  b.input("axes", {2}, onnx::TensorProto::INT64);
  b.output("y");
  b.node("ReduceMean", {"x", "axes"}, {"y"}, "mean");
  auto m = adept::onnx::load_bytes(b.bytes());
  std::string msg = message_of<adept::ValueError>(
      [&] { m->forward_all({x, adept::tensor(std::vector<int64_t>{2, 2})}); });
  EXPECT_NE(msg.find("node 'mean' (ReduceMean): ReduceMean: axes [2, 2] name axis 2 twice"), std::string::npos) << msg;
  // distinct axes still work
  EXPECT_EQ(m->forward_all({x, adept::tensor(std::vector<int64_t>{2, -4})})[0].sizes(), (adept::Shape{1, 1, 1, 1}));
}

TEST(OnnxLoad, PoolPadsCoveringAWholeWindowAreValueErrors) {
  for (const char* op : {"AveragePool", "MaxPool"}) {
    ModelBuilder b;
    b.input("x", {1, 1, 4, 4});
    b.output("y");
    auto& n = b.node(op, {"x"}, {"y"}, "pool");
    set_ints(n, "kernel_shape", {2, 3});
    set_ints(n, "pads", {1, 3, 0, 0});
    std::string msg = message_of<adept::ValueError>([&] { adept::onnx::load_bytes(b.bytes()); });
    EXPECT_NE(msg.find(fmt::format("node 'pool' ({}): {}: pads [1, 3, 0, 0] must be smaller than kernel_shape [2, 3]",
                                   op, op)),
              std::string::npos)
        << msg;
    // pads one smaller than the kernel are fine (every window holds an input element)
    b.g().mutable_node(0)->mutable_attribute(1)->set_ints(1, 2);
    Tensor y = adept::onnx::load_bytes(b.bytes())->forward(adept::randn({1, 1, 4, 4}));
    EXPECT_FALSE(adept::any(adept::isnan(y)).item<bool>()) << op;
  }
}

TEST(OnnxLoad, Conv3dAndEinsumDiagonalAreListedWithTheUnsupportedOps) {
  ModelBuilder b(17);
  b.input("x", {1, 1, 2, 2, 2});
  b.input("m", {3, 3});
  b.output("y");
  b.output("d");
  b.output("z");
  b.floats("w", std::vector<float>(8, 1.f), {1, 1, 2, 2, 2});
  b.node("Conv", {"x", "w"}, {"y"}, "conv3d");
  auto* eq = b.node("Einsum", {"m"}, {"d"}, "diag").add_attribute();
  eq->set_name("equation");
  eq->set_type(onnx::AttributeProto::STRING);
  eq->set_s("ii->i");
  b.node("FancyOp", {"m"}, {"z"}, "fancy");
  try {
    adept::onnx::load_bytes(b.bytes());
    FAIL() << "no UnsupportedError";
  } catch (const adept::onnx::UnsupportedError& e) {
    ASSERT_EQ(e.items().size(), 3u) << e.what();
    std::string msg = e.what();
    for (const char* s : {"Conv (opset 17) in 'conv3d': a 3-d convolution (1-d and 2-d are supported)",
                          "Einsum (opset 17) in 'diag': equation 'ii->i' repeats label 'i' within one operand",
                          "FancyOp (opset 17) in 'fancy'"})
      EXPECT_NE(msg.find(s), std::string::npos) << s << " missing from: " << msg;
  }
}

TEST(OnnxLoad, ExternalDataThroughASymbolicLinkIsRefused) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / "adept_onnx_symlink";
  fs::remove_all(root);
  fs::path dir = root / "model", outside = root / "outside";
  fs::create_directories(dir);
  fs::create_directories(outside);
  external_model("weights.bin", outside);  // writes outside/weights.bin
  external_model("real.bin", dir);         // writes model/real.bin
  fs::create_symlink(outside / "weights.bin", dir / "escape.bin");  // a link leaving the folder
  fs::create_symlink("real.bin", dir / "alias.bin");                // a link inside it
  fs::create_directory_symlink(outside, dir / "sub");               // a linked folder
  for (const std::string location : {"escape.bin", "alias.bin", "sub/weights.bin"}) {
    std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << external_model(location).bytes();
    std::string msg = message_of<adept::IOError>([&] { adept::onnx::load((dir / "model.onnx").string()); });
    EXPECT_NE(msg.find("tensor 'bias.weight' names external data '" + location + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is a symbolic link"), std::string::npos) << msg;
  }
  std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << external_model("real.bin").bytes();
  EXPECT_NO_THROW(adept::onnx::load((dir / "model.onnx").string()));
  std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << external_model("/etc/passwd").bytes();
  std::string msg = message_of<adept::IOError>([&] { adept::onnx::load((dir / "model.onnx").string()); });
  EXPECT_NE(msg.find("not a relative path inside the model's folder"), std::string::npos) << msg;
  fs::remove_all(root);
}

TEST(OnnxModule, HalfConvertsTheExpectedInputAndTheConstants) {
  // x -> Conv (weight, bias) -> Mul by a Constant [1]-shaped 0.5 -> y: after to(float16) the input is float16,
  // the constant follows, and the output is close to float32's.
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.output("y");
  std::vector<float> w(2 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  b.floats("conv.weight", w, {2, 2, 3, 3});
  b.floats("conv.bias", {0.25f, -0.5f}, {2});
  auto& k = b.node("Constant", {}, {"half"});
  auto* v = k.add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  v->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  v->mutable_t()->add_dims(1);
  v->mutable_t()->add_float_data(0.5f);
  b.node("Conv", {"x", "conv.weight", "conv.bias"}, {"c"});
  b.node("Mul", {"c", "half"}, {"y"});
  auto m = adept::onnx::load_bytes(b.bytes());
  Tensor x = adept::randn({1, 2, 4, 4});
  Tensor want = m->forward(x);
  m->to(adept::kFloat16);
  Tensor y = m->forward(x.to(adept::kFloat16));
  EXPECT_EQ(y.dtype(), adept::kFloat16);
  EXPECT_TRUE(adept::allclose(y.to(adept::kFloat32), want, 1e-2, 1e-2));
  std::string msg = message_of<adept::DtypeError>([&] { m->forward(x); });
  EXPECT_NE(msg.find("'x' must be float16, got float32 (the model declares float32; the module was converted to "
                     "float16)"),
            std::string::npos)
      << msg;
  m->to(adept::kFloat32);  // back: float32 again
  EXPECT_TRUE(adept::allclose(m->forward(x), want, 1e-2, 1e-2));
}

}  // namespace
