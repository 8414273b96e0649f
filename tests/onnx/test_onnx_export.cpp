// ONNX export: the generic GraphWriter (tensors of every dtype and attributes of every kind read back by the
// importer, the opset / IR table, its errors, atomic saves) and YOLO11's exporter (the exported graph
// re-imported gives the model's evaluation output; unknown modules and bad options are typed errors that
// name what is wrong, and write no file).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "adept/autograd.h"
#include "adept/models/yolo/export.h"
#include "adept/nn/modules.h"
#include "adept/onnx.h"
#include "adept/onnx/writer.h"
#include "adept/ops.h"

namespace {

namespace fs = std::filesystem;
using adept::Tensor;
using adept::onnx::GraphWriter;

// A fresh folder under the temp directory, removed with the object.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / fmt::format("adept_onnx_export_{}_{}", name, getpid())) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(OnnxWriter, IrVersionFollowsTheOpsetAndOtherOpsetsAreValueErrors) {
  EXPECT_EQ(adept::onnx::ir_version_for_opset(11), 6);
  EXPECT_EQ(adept::onnx::ir_version_for_opset(13), 7);
  EXPECT_EQ(adept::onnx::ir_version_for_opset(17), 8);
  EXPECT_EQ(adept::onnx::ir_version_for_opset(19), 9);
  EXPECT_EQ(adept::onnx::ir_version_for_opset(21), 10);
  EXPECT_NE(error_of<adept::ValueError>([] { GraphWriter g(10); }).find("opset 10 is not supported"),
            std::string::npos);
  EXPECT_NE(error_of<adept::ValueError>([] { GraphWriter g(22); }).find("opsets 11 to 21"), std::string::npos);
}

TEST(OnnxWriter, InitializersOfEveryDtypeRoundTripThroughTheImporter) {
  adept::manual_seed(3);
  const std::vector<Tensor> values{
      adept::randn({2, 3}),
      adept::randn({2, 3}).to(adept::kFloat64),
      adept::randn({2, 3}).to(adept::kFloat16),
      adept::randn({2, 3}).to(adept::kBFloat16),
      adept::randint(-1000, 1000, {2, 3}, adept::kInt32),
      adept::randint(-(int64_t{1} << 40), int64_t{1} << 40, {2, 3}, adept::kInt64),
      adept::randint(0, 256, {2, 3}, adept::kUInt8),
      adept::randn({2, 3}) > 0,
      adept::randn({3, 2}).transpose(0, 1),  // not contiguous: stored contiguous
      adept::zeros({0, 3}),
  };
  GraphWriter g(17);
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string in = "x" + std::to_string(i), init = "w" + std::to_string(i), out = "y" + std::to_string(i);
    g.add_input(in, values[i].dtype(), {"n", 3});
    g.add_initializer(init, values[i]);
    g.add_node("Identity", {init}, {out + "_w"});
    g.add_node("Concat", {in, out + "_w"}, {out}, {{"axis", int64_t{0}}});
    g.add_output(out, values[i].dtype(), {"m", 3});
  }
  auto model = adept::onnx::load_bytes(g.serialize());
  std::vector<Tensor> inputs;
  for (const Tensor& v : values) inputs.push_back(adept::zeros({1, 3}, v.dtype()));
  const std::vector<Tensor> outs = model->forward_all(inputs);
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(outs[i].dtype(), values[i].dtype()) << i;
    EXPECT_TRUE(adept::equal(outs[i].narrow(0, 1, values[i].size(0)), values[i])) << "initializer " << i;
  }
}

TEST(OnnxWriter, AttributesOfEveryKindAndConstantsReachTheImporter) {
  GraphWriter g(17);
  g.add_input("x", adept::kFloat32, {1, 1, 4, 4});
  const std::string scale = g.add_constant("/scale", adept::tensor(std::vector<float>{1, 1, 2, 2}));
  EXPECT_EQ(scale, "/scale_output_0");
  EXPECT_EQ(g.add_constant("/scale", adept::scalar_tensor(2.0, adept::kFloat32)), "/scale_1_output_0");
  g.add_node("Resize", {"x", "", scale}, {"up"},  // STRING attributes
             {{"mode", std::string("nearest")}, {"coordinate_transformation_mode", std::string("asymmetric")},
              {"nearest_mode", std::string("floor")}});
  g.add_node("LeakyRelu", {"up"}, {"lr"}, {{"alpha", 0.25f}});                        // FLOAT
  g.add_node("Transpose", {"lr"}, {"t"}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});  // INTS
  g.add_node("Softmax", {"t"}, {"y"}, {{"axis", int64_t{-1}}}, "softmax");           // INT
  g.add_output("y", adept::kFloat32, {1, 1, 8, 8});
  adept::manual_seed(0);
  const Tensor x = adept::randn({1, 1, 4, 4});
  const Tensor want =
      adept::softmax(adept::leaky_relu(adept::interpolate(x, std::nullopt, std::vector<double>{2, 2}, "nearest"), 0.25)
                         .transpose(2, 3),
                     -1);
  EXPECT_TRUE(adept::allclose(adept::onnx::load_bytes(g.serialize())->forward(x), want, 1e-6, 1e-7));
}

TEST(OnnxWriter, NamesDefinedTwiceOrNeverAreValueErrors) {
  GraphWriter g(13);
  g.add_input("x", adept::kFloat32, {2});
  EXPECT_NE(error_of<adept::ValueError>([&] { g.add_initializer("x", adept::ones({2})); }).find("'x'"),
            std::string::npos);
  g.add_node("Relu", {"x"}, {"y"});
  EXPECT_NE(error_of<adept::ValueError>([&] { g.add_node("Relu", {"x"}, {"y"}); }).find("defined twice"),
            std::string::npos);
  EXPECT_EQ(g.unique_name("y"), "y_1");
  EXPECT_EQ(g.unique_name("y"), "y_2");
  g.add_node("Add", {"y", "z"}, {"w"}, {}, "add");
  g.add_output("w", adept::kFloat32, {2});
  EXPECT_NE(error_of<adept::ValueError>([&] { (void)g.serialize(); }).find("node 'add' (Add) reads 'z'"),
            std::string::npos);

  GraphWriter h(13);
  h.add_input("x", adept::kFloat32, {2});
  h.add_output("nothing", adept::kFloat32, {2});
  EXPECT_NE(error_of<adept::ValueError>([&] { (void)h.serialize(); }).find("graph output 'nothing'"),
            std::string::npos);
}

TEST(OnnxWriter, SaveIsAtomicAndAFailureLeavesTheOldFile) {
  TempDir dir("save");
  const std::string path = dir.file("m.onnx");
  {
    std::ofstream(path) << "old";
  }
  GraphWriter bad(13);
  bad.add_output("missing", adept::kFloat32, {1});
  EXPECT_THROW(bad.save(path), adept::ValueError);
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "old");
  GraphWriter g(13);
  g.add_input("x", adept::kFloat32, {1});
  g.add_node("Neg", {"x"}, {"y"});
  g.add_output("y", adept::kFloat32, {1});
  g.save(path);
  EXPECT_TRUE(adept::equal(adept::onnx::load(path)->forward(adept::ones({1})), -adept::ones({1})));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);  // no temporary left
  EXPECT_NE(error_of<adept::IOError>([&] { g.save(dir.file("no_such_dir/m.onnx")); }).find("no_such_dir"),
            std::string::npos);
}

// ---- YOLO11 ----

using adept::models::yolo::OnnxExportOptions;
using adept::models::yolo::Yolo11;

// A yolo11n with random BatchNorm statistics and affine parameters, so folding them matters.
std::shared_ptr<Yolo11> random_yolo(int64_t nc) {
  adept::manual_seed(7);
  auto model = std::make_shared<Yolo11>("n", nc);
  adept::NoGradGuard ng;
  for (auto& [name, t] : model->named_buffers()) {
    if (name.ends_with("running_mean")) t.copy_(adept::randn(t.sizes()) * 0.1);
    if (name.ends_with("running_var")) t.copy_(adept::rand(t.sizes()) + 0.5);
  }
  for (auto& [name, t] : model->named_parameters()) {
    if (name.ends_with("bn.weight")) t.copy_(adept::rand(t.sizes()) + 0.5);
    if (name.ends_with("bn.bias")) t.copy_(adept::randn(t.sizes()) * 0.1);
  }
  model->eval();
  return model;
}

std::vector<std::string> class_names(int64_t nc) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < nc; ++i) names.push_back(fmt::format("c{}", i));
  return names;
}

TEST(YoloOnnxExport, StaticGraphReimportsWithTheModelsEvalOutput) {
  TempDir dir("yolo_static");
  auto model = random_yolo(3);
  OnnxExportOptions o;
  o.height = 64;
  o.width = 96;
  o.batch = 2;
  const auto r = adept::models::yolo::export_onnx(*model, class_names(3), dir.file("y.onnx"), o);
  EXPECT_EQ(r.opset, 17);
  EXPECT_EQ(r.ir_version, 8);
  EXPECT_EQ(r.input_shape, (std::vector<std::string>{"2", "3", "64", "96"}));
  EXPECT_EQ(r.output_shape, (std::vector<std::string>{"2", "7", "126"}));  // 8x12 + 4x6 + 2x3 anchors
  auto g = adept::onnx::load(r.path);
  EXPECT_EQ(g->input_names(), std::vector<std::string>{"images"});
  EXPECT_EQ(g->output_names(), std::vector<std::string>{"output0"});
  adept::NoGradGuard ng;
  const Tensor x = adept::rand({2, 3, 64, 96});
  const Tensor want = model->forward(x), got = g->forward(x);
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(adept::allclose(got, want, 1e-5, 1e-4)) << (got - want).abs().max().item<float>();
  EXPECT_THROW(g->forward(adept::rand({1, 3, 64, 96})), adept::ShapeError);  // the batch is fixed
}

TEST(YoloOnnxExport, UnknownModulesAreUnsupportedErrorsNamingPathAndType) {
  TempDir dir("yolo_unknown");
  auto model = random_yolo(2);
  // An activation swapped for one the exporter does not write.
  auto c3k2 = std::dynamic_pointer_cast<adept::models::yolo::C3k2>((*model->model)[2]);
  ASSERT_TRUE(c3k2);
  auto old_act = c3k2->cv1->act();
  c3k2->cv1->replace_module("act", std::make_shared<adept::nn::ReLU>());
  try {
    adept::models::yolo::export_onnx(*model, class_names(2), dir.file("a.onnx"));
    ADD_FAILURE() << "no error";
  } catch (const adept::onnx::UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("module 'model.2.cv1.act' (ReLU)"), std::string::npos) << e.what();
    ASSERT_EQ(e.items().size(), 1u);
    EXPECT_EQ(e.items()[0].op_type, "ReLU");
    EXPECT_EQ(e.items()[0].node, "model.2.cv1.act");
  }
  c3k2->cv1->replace_module("act", old_act);
  // A whole layer of a type it does not know.
  model->model->replace_module("9", std::make_shared<adept::nn::Dropout>(0.1));
  const std::string msg = error_of<adept::onnx::UnsupportedError>(
      [&] { adept::models::yolo::export_onnx(*model, class_names(2), dir.file("a.onnx")); });
  EXPECT_NE(msg.find("module 'model.9' (Dropout): a module type the YOLO11 ONNX exporter does not know"),
            std::string::npos)
      << msg;
  EXPECT_FALSE(fs::exists(dir.file("a.onnx")));
}

TEST(YoloOnnxExport, BadOptionsAreValueErrorsBeforeAnythingIsWritten) {
  TempDir dir("yolo_bad");
  auto model = random_yolo(2);
  const std::string path = dir.file("b.onnx");
  auto export_with = [&](auto set) {
    OnnxExportOptions o;
    o.height = o.width = 64;
    set(o);
    return error_of<adept::ValueError>([&] { adept::models::yolo::export_onnx(*model, class_names(2), path, o); });
  };
  EXPECT_NE(export_with([](OnnxExportOptions& o) { o.opset = 9; }).find("opset 9 is not supported"), std::string::npos);
  EXPECT_NE(export_with([](OnnxExportOptions& o) { o.height = 100; }).find("multiples of 32"), std::string::npos);
  EXPECT_NE(export_with([](OnnxExportOptions& o) { o.batch = 0; }).find("batch must be >= 1"), std::string::npos);
  EXPECT_NE(error_of<adept::ValueError>([&] { adept::models::yolo::export_onnx(*model, class_names(3), path); })
                .find("3 class names for a model with nc = 2"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
