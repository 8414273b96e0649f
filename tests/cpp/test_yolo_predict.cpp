// The YOLO11 predictor: source resolution, the predict letterbox (minimal rectangle) and its round
// trip back to the image, predict on synthetic images with a random yolo11n (outputs, thresholds,
// class filter, saved images / txt / JSON), drawing, options from a Config, and input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "adept/adept.h"
#include "adept/models/yolo/draw.h"
#include "adept/models/yolo/predictor.h"
#include "adept/vision/transforms.h"
#include "test_util.h"
#include "vision_test_util.h"

namespace adept::testing {
namespace {

using namespace adept::models::yolo;
using vision::testing::TempDir;
namespace fs = std::filesystem;

/// A (h, w, 3) uint8 BGR image filled with `bgr`.
Tensor solid(int64_t h, int64_t w, std::array<uint8_t, 3> bgr) {
  Tensor im = empty({h, w, 3}, kUInt8);
  uint8_t* p = im.data_ptr<uint8_t>();
  for (int64_t i = 0; i < h * w; ++i) std::copy(bgr.begin(), bgr.end(), p + 3 * i);
  return im;
}

/// Fills the pixel rectangle [x1, x2) x [y1, y2) of `im` with `bgr`.
void fill_rect(Tensor& im, int64_t x1, int64_t y1, int64_t x2, int64_t y2, std::array<uint8_t, 3> bgr) {
  uint8_t* p = im.data_ptr<uint8_t>();
  const int64_t w = im.size(1);
  for (int64_t y = y1; y < y2; ++y)
    for (int64_t x = x1; x < x2; ++x) std::copy(bgr.begin(), bgr.end(), p + 3 * (y * w + x));
}

/// A grey scene with a few coloured rectangles, written to `path` (format from the extension).
void write_scene(const fs::path& path, int64_t h, int64_t w) {
  Tensor im = solid(h, w, {90, 100, 110});
  fill_rect(im, w / 8, h / 6, w / 2, h / 2, {20, 200, 40});
  fill_rect(im, w / 2, h / 2, w - w / 10, h - h / 8, {230, 30, 30});
  fill_rect(im, w / 3, 2 * h / 3, w / 3 + w / 10, 2 * h / 3 + h / 10, {250, 250, 250});
  fs::create_directories(path.parent_path());
  vision::imwrite(path.string(), im);
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

uint8_t px(const Tensor& im, int64_t y, int64_t x, int64_t c) {
  return im.data_ptr<uint8_t>()[(y * im.size(1) + x) * 3 + c];
}

const std::vector<std::string> kNames{"circle", "square", "triangle"};

/// One random yolo11n with 3 classes shared by the predict tests (built once: it takes a moment).
class YoloPredict : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    manual_seed(0);
    model_ = new Yolo11("n", 3);
  }
  static void TearDownTestSuite() {
    delete model_;
    model_ = nullptr;
  }
  /// Options for a random model: its class scores are about 3e-4 .. 4e-3 (the bias init), so a
  /// tiny conf keeps many boxes; quiet; small images.
  static PredictOptions low_conf(int imgsz = 160) {
    PredictOptions o;
    o.imgsz = imgsz;
    o.nms.conf_thres = 1e-4;
    o.nms.max_det = 5000;
    o.verbose = false;
    return o;
  }
  static Yolo11* model_;
};
Yolo11* YoloPredict::model_ = nullptr;

// ---- resolve_sources ----

TEST_F(YoloPredict, ResolveFileFolderListAndCommas) {
  TempDir d;
  for (const char* n : {"b.jpg", "a.png", "c.BMP"}) write_scene(d / ("imgs/" + std::string(n)), 16, 16);
  write_scene(d / "imgs/sub/deep.png", 16, 16);  // not listed: folders are not searched recursively
  vision::testing::write_file(d / "imgs/notes.md", "not an image");
  const std::string imgs = (d / "imgs").string();

  EXPECT_EQ(resolve_sources((d / "imgs/b.jpg").string()), std::vector<std::string>{imgs + "/b.jpg"});
  const std::vector<std::string> folder{imgs + "/a.png", imgs + "/b.jpg", imgs + "/c.BMP"};
  EXPECT_EQ(resolve_sources(imgs), folder);

  // A list: relative to its folder, blank lines skipped, entries may be folders, order kept.
  vision::testing::write_file(d / "list.txt", "imgs/c.BMP\n\n  imgs/sub  \n" + imgs + "/a.png\n");
  EXPECT_EQ(resolve_sources((d / "list.txt").string()),
            (std::vector<std::string>{imgs + "/c.BMP", imgs + "/sub/deep.png", imgs + "/a.png"}));

  // Comma-separated, spaces ignored, any mix of kinds.
  const auto mixed = resolve_sources(imgs + "/b.jpg , " + (d / "list.txt").string() + "," + imgs + "/sub");
  EXPECT_EQ(mixed, (std::vector<std::string>{imgs + "/b.jpg", imgs + "/c.BMP", imgs + "/sub/deep.png",
                                             imgs + "/a.png", imgs + "/sub/deep.png"}));

  // A path whose name contains a comma is taken whole when it exists.
  write_scene(d / "x,y.png", 16, 16);
  EXPECT_EQ(resolve_sources((d / "x,y.png").string()), std::vector<std::string>{(d / "x,y.png").string()});
}

TEST_F(YoloPredict, ResolveErrors) {
  TempDir d;
  fs::create_directories(d / "empty");
  write_scene(d / "ok.png", 16, 16);
  EXPECT_THROW(resolve_sources((d / "missing.jpg").string()), IOError);
  EXPECT_THROW(resolve_sources((d / "ok.png").string() + "," + (d / "missing.jpg").string()), IOError);
  EXPECT_THROW(resolve_sources((d / "empty").string()), ValueError);
  EXPECT_THROW(resolve_sources("  "), ValueError);
  vision::testing::write_file(d / "empty/notes.md", "x");  // no image extension: still empty
  EXPECT_THROW(resolve_sources((d / "empty").string()), ValueError);

  // A list naming a missing file says which list.
  vision::testing::write_file(d / "list.txt", "ok.png\nnope.png\n");
  try {
    resolve_sources((d / "list.txt").string());
    FAIL() << "expected IOError";
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.png"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("list.txt"), std::string::npos) << e.what();
  }
  vision::testing::write_file(d / "outer.txt", "list.txt\n");
  EXPECT_THROW(resolve_sources((d / "outer.txt").string()), ValueError);
}

// ---- preprocess: the minimal-rectangle letterbox ----

TEST_F(YoloPredict, PreprocessMinimalRectangle) {
  struct Case {
    int64_t h, w;
    int imgsz;
    int64_t in_h, in_w;
  };
  // long side -> imgsz (also scaling up), short side padded to the next multiple of 32.
  for (const Case c : {Case{333, 517, 640, 416, 640}, Case{517, 333, 640, 640, 416}, Case{300, 500, 640, 384, 640},
                       Case{50, 100, 320, 160, 320}, Case{640, 640, 640, 640, 640}, Case{1, 700, 64, 32, 64}}) {
    const PreparedImage p = preprocess(solid(c.h, c.w, {10, 20, 30}), c.imgsz);
    ASSERT_EQ(p.input.sizes(), (Shape{1, 3, c.in_h, c.in_w})) << c.h << "x" << c.w;
    EXPECT_EQ(p.input.dtype(), kFloat32);
    EXPECT_EQ(p.input.size(2) % 32, 0);
    EXPECT_EQ(p.input.size(3) % 32, 0);
    EXPECT_EQ(std::max(p.input.size(2), p.input.size(3)), c.imgsz);
    EXPECT_DOUBLE_EQ(p.gain, std::min(double(c.imgsz) / c.h, double(c.imgsz) / c.w));
    // Centred: the padding splits as round(d/2 -+ 0.1).
    const int64_t new_h = std::max<int64_t>(1, std::llround(c.h * p.gain)), new_w = std::llround(c.w * p.gain);
    EXPECT_EQ(p.pad_y, std::lround((c.in_h - new_h) / 2.0 - 0.1));
    EXPECT_EQ(p.pad_x, std::lround((c.in_w - new_w) / 2.0 - 0.1));
  }
  // RGB order, / 255, and 114 padding: a 333 x 517 BGR (10, 20, 30) image -> 416 x 640 with 2 px
  // of padding on top (412 rows of image).
  const PreparedImage p = preprocess(solid(333, 517, {10, 20, 30}), 640);
  const Tensor x = p.input;
  EXPECT_EQ(p.pad_y, 2);
  EXPECT_FLOAT_EQ(x.index({0, 0, 200, 300}).item<float>(), 30.f / 255);  // R
  EXPECT_FLOAT_EQ(x.index({0, 1, 200, 300}).item<float>(), 20.f / 255);
  EXPECT_FLOAT_EQ(x.index({0, 2, 200, 300}).item<float>(), 10.f / 255);  // B
  EXPECT_FLOAT_EQ(x.index({0, 0, 0, 300}).item<float>(), 114.f / 255);
  EXPECT_FLOAT_EQ(x.index({0, 2, 415, 10}).item<float>(), 114.f / 255);

  // vision::letterbox's auto_stride itself: boxes follow the image; a negative stride is refused.
  const vision::LabeledImage li{solid(333, 517, {1, 2, 3}), T({10, 20, 110, 220}, {1, 4}), T({0})};
  const vision::Letterboxed lb = vision::letterbox(li, 640, 640, true, 114, 32);
  EXPECT_EQ(lb.out.image.sizes(), (Shape{416, 640, 3}));
  const std::vector<double> mapped = values(lb.out.boxes);
  EXPECT_NEAR(mapped[0], 10 * lb.gain + lb.pad_x, 1e-3);
  EXPECT_NEAR(mapped[1], 20 * lb.gain + lb.pad_y, 1e-3);
  EXPECT_THROW(vision::letterbox(li, 640, 640, true, 114, -1), ValueError);

  EXPECT_THROW(preprocess(solid(10, 10, {0, 0, 0}), 100), ValueError);  // not a multiple of 32
  EXPECT_THROW(preprocess(solid(10, 10, {0, 0, 0}), 0), ValueError);
  EXPECT_THROW(preprocess(empty({10, 10}, kUInt8), 64), ShapeError);
  EXPECT_THROW(preprocess(empty({10, 10, 3}, kFloat32), 64), DtypeError);
}

TEST_F(YoloPredict, LetterboxRoundTripOfADrawnBox) {
  // A white box drawn into a black 300 x 500 image, found again in the network input and mapped
  // back with scale_boxes and the letterbox's gain / padding.
  const double bx1 = 120, by1 = 70, bx2 = 310, by2 = 230;
  Tensor im = solid(300, 500, {0, 0, 0});
  fill_rect(im, 120, 70, 310, 230, {255, 255, 255});
  const PreparedImage p = preprocess(im, 640);
  ASSERT_EQ(p.input.sizes(), (Shape{1, 3, 384, 640}));
  const Tensor g = p.input.index({0, 1}).contiguous();
  const float* v = g.data_ptr<float>();
  int64_t x1 = 640, y1 = 384, x2 = -1, y2 = -1;
  for (int64_t y = 0; y < 384; ++y)
    for (int64_t x = 0; x < 640; ++x)
      if (v[y * 640 + x] > 0.5f) x1 = std::min(x1, x), y1 = std::min(y1, y), x2 = std::max(x2, x), y2 = std::max(y2, y);
  // Pixel-index extent -> box edges, then back to the original image.
  const Tensor found = T({double(x1), double(y1), double(x2 + 1), double(y2 + 1), 0.9, 1}, {1, 6});
  const Tensor back = scale_boxes(found, tensor(std::vector<double>{p.gain, p.pad_x, p.pad_y}, kFloat64), {300, 500});
  const std::vector<double> b = values(back);
  const double px_tol = 1.0 / p.gain + 1e-6;  // one input pixel of the resize
  EXPECT_NEAR(b[0], bx1, px_tol);
  EXPECT_NEAR(b[1], by1, px_tol);
  EXPECT_NEAR(b[2], bx2, px_tol);
  EXPECT_NEAR(b[3], by2, px_tol);
  EXPECT_EQ(b[4], values(found)[4]);
  EXPECT_EQ(b[5], 1);
  // Exact for coordinates mapped forward with the same gain and padding.
  const Tensor fwd = T({bx1 * p.gain + p.pad_x, by1 * p.gain + p.pad_y, bx2 * p.gain + p.pad_x,
                        by2 * p.gain + p.pad_y, 0.5, 2},
                       {1, 6}, kFloat64);
  const std::vector<double> e =
      values(scale_boxes(fwd, tensor(std::vector<double>{p.gain, p.pad_x, p.pad_y}, kFloat64), {300, 500}));
  EXPECT_NEAR(e[0], bx1, 1e-9);
  EXPECT_NEAR(e[1], by1, 1e-9);
  EXPECT_NEAR(e[2], bx2, 1e-9);
  EXPECT_NEAR(e[3], by2, 1e-9);
}

// ---- predict ----

TEST_F(YoloPredict, PredictOutputsAndSavedFiles) {
  TempDir d;
  write_scene(d / "in/scene.png", 240, 320);
  write_scene(d / "in/odd.jpg", 333, 517);  // needs padding: input 128 x 160 at imgsz 160
  PredictOptions o = low_conf();
  o.save_txt = true;
  const std::string out = (d / "out").string();
  model_->train();
  const auto results = predict(*model_, kNames, resolve_sources((d / "in").string()), o, out);
  EXPECT_TRUE(model_->is_training());  // mode restored
  ASSERT_EQ(results.size(), 2u);
  const nlohmann::json j = nlohmann::json::parse(read_text(d / "out/predictions.json"));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const ImagePrediction& r = results[k];
    const auto [h, w] = k == 0 ? std::pair<int64_t, int64_t>{333, 517} : std::pair<int64_t, int64_t>{240, 320};
    EXPECT_EQ(fs::path(r.path).filename().string(), k == 0 ? "odd.jpg" : "scene.png");
    EXPECT_EQ(r.height, h);
    EXPECT_EQ(r.width, w);
    ASSERT_EQ(r.boxes.dim(), 2);
    ASSERT_EQ(r.boxes.size(1), 6);
    EXPECT_EQ(r.boxes.dtype(), kFloat32);
    EXPECT_TRUE(r.boxes.device().is_cpu());
    const int64_t n = r.boxes.size(0);
    ASSERT_GT(n, 0) << "a tiny conf keeps boxes of the random model";
    const std::vector<double> v = values(r.boxes);
    for (int64_t i = 0; i < n; ++i) {
      const double* b = v.data() + 6 * i;
      EXPECT_TRUE(0 <= b[0] && b[0] <= b[2] && b[2] <= w) << b[0] << " " << b[2];
      EXPECT_TRUE(0 <= b[1] && b[1] <= b[3] && b[3] <= h) << b[1] << " " << b[3];
      EXPECT_GT(b[4], o.nms.conf_thres);
      EXPECT_TRUE(b[5] == 0 || b[5] == 1 || b[5] == 2);
      if (i > 0) {
        EXPECT_LE(b[4], v[6 * (i - 1) + 4]);  // conf descending
      }
    }
    // Saved: the drawn image (enlarged to a long side of 640 when smaller), labels/<stem>.txt,
    // and the JSON entry.
    const std::string name = fs::path(r.path).filename().string();
    const Tensor saved = vision::imread((d / "out" / name).string());
    const double s = std::max<double>(1.0, 640.0 / static_cast<double>(std::max(h, w)));
    EXPECT_EQ(saved.sizes(), (Shape{std::lround(h * s), std::lround(w * s), 3}));
    EXPECT_TRUE(fs::exists(d / "out/labels" / (fs::path(name).stem().string() + ".txt")));
    const nlohmann::json& e = j[k];
    EXPECT_EQ(e.at("image").get<std::string>(), r.path);
    EXPECT_EQ(e.at("width").get<int64_t>(), w);
    EXPECT_EQ(e.at("height").get<int64_t>(), h);
    const nlohmann::json& dets = e.at("detections");
    ASSERT_EQ(static_cast<int64_t>(dets.size()), n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t cls = dets[i].at("class").get<int64_t>();
      EXPECT_EQ(cls, static_cast<int64_t>(v[6 * i + 5]));
      EXPECT_EQ(dets[i].at("name").get<std::string>(), kNames[cls]);
      EXPECT_NEAR(dets[i].at("confidence").get<double>(), v[6 * i + 4], 1e-5);
      const auto box = dets[i].at("box").get<std::vector<double>>();
      ASSERT_EQ(box.size(), 4u);
      for (int c = 0; c < 4; ++c) EXPECT_NEAR(box[c], v[6 * i + c], 1e-5);
    }
  }
  // The drawn image differs from the source (boxes drawn), the plain one (save off) is not written.
  const Tensor drawn = vision::imread((d / "out/scene.png").string()).to(kInt32);
  const Tensor plain = draw_detections_readable(vision::imread((d / "in/scene.png").string()), zeros({0, 6}), kNames);
  ASSERT_EQ(drawn.sizes(), plain.sizes());
  EXPECT_GT(values(drawn.sub(plain.to(kInt32)).abs().sum())[0], 0);
  PredictOptions nosave = low_conf();
  nosave.save = false;
  predict(*model_, kNames, {(d / "in/scene.png").string()}, nosave, (d / "out2").string());
  EXPECT_FALSE(fs::exists(d / "out2/scene.png"));
  EXPECT_FALSE(fs::exists(d / "out2/labels"));
  EXPECT_TRUE(fs::exists(d / "out2/predictions.json"));
  // Without save_dir nothing is written and the results are the same.
  const auto again = predict(*model_, kNames, {(d / "in/scene.png").string()}, nosave);
  EXPECT_EQ(values(again[0].boxes), values(results[1].boxes));
}

TEST_F(YoloPredict, ConfThresholdAndClassFilter) {
  TempDir d;
  write_scene(d / "scene.png", 200, 300);
  const std::vector<std::string> src{(d / "scene.png").string()};
  PredictOptions o = low_conf();
  const std::vector<double> all = values(predict(*model_, kNames, src, o)[0].boxes);
  const int64_t n = static_cast<int64_t>(all.size() / 6);
  ASSERT_GT(n, 4);
  // A threshold between the detections' confidences: exactly the detections above it remain (NMS
  // keeps the same boxes above the threshold whatever lies below it).
  const double t = (all[6 * (n / 2) + 4] + all[6 * (n / 2 - 1) + 4]) / 2;
  o.nms.conf_thres = t;
  const std::vector<double> high = values(predict(*model_, kNames, src, o)[0].boxes);
  std::vector<double> expected;
  for (int64_t i = 0; i < n; ++i)
    if (all[6 * i + 4] > t) expected.insert(expected.end(), all.begin() + 6 * i, all.begin() + 6 * i + 6);
  EXPECT_EQ(high, expected);
  for (size_t i = 4; i < high.size(); i += 6) EXPECT_GE(high[i], t);

  // A class filter keeps exactly the detections of that class (NMS is per class; the filter
  // applies to each box's best class, as Ultralytics').
  for (int64_t cls = 0; cls < 3; ++cls) {
    PredictOptions only = low_conf();
    only.nms.classes = {cls};
    const std::vector<double> filtered = values(predict(*model_, kNames, src, only)[0].boxes);
    expected.clear();
    for (int64_t i = 0; i < n; ++i)
      if (all[6 * i + 5] == cls) expected.insert(expected.end(), all.begin() + 6 * i, all.begin() + 6 * i + 6);
    EXPECT_EQ(filtered, expected) << "classes = " << cls;
  }
}

TEST_F(YoloPredict, SaveTxtFormat) {
  TempDir d;
  write_scene(d / "shot.jpg", 180, 260);
  PredictOptions o = low_conf();
  o.save = false;
  o.save_txt = true;
  o.save_conf = true;
  const auto r = predict(*model_, kNames, {(d / "shot.jpg").string()}, o, (d / "run").string());
  const std::vector<double> v = values(r[0].boxes);
  const int64_t n = static_cast<int64_t>(v.size() / 6);
  ASSERT_GT(n, 0);
  std::istringstream lines(read_text(d / "run/labels/shot.txt"));
  int64_t i = 0;
  for (std::string line; std::getline(lines, line); ++i) {
    ASSERT_LT(i, n);
    std::istringstream f(line);
    std::vector<double> x;
    for (double t; f >> t;) x.push_back(t);
    ASSERT_EQ(x.size(), 6u) << line;
    const double* b = v.data() + 6 * i;
    EXPECT_EQ(x[0], b[5]);
    // "%g": 6 significant digits.
    EXPECT_NEAR(x[1], (b[0] + b[2]) / 2 / 260, 1e-5) << line;
    EXPECT_NEAR(x[2], (b[1] + b[3]) / 2 / 180, 1e-5) << line;
    EXPECT_NEAR(x[3], (b[2] - b[0]) / 260, 1e-5) << line;
    EXPECT_NEAR(x[4], (b[3] - b[1]) / 180, 1e-5) << line;
    EXPECT_NEAR(x[5], b[4], 1e-5 * b[4] + 1e-9) << line;
    for (int c = 1; c < 5; ++c) EXPECT_TRUE(x[c] >= 0 && x[c] <= 1) << line;
  }
  EXPECT_EQ(i, n);

  // Without save_conf: five fields; an image without detections writes no txt (as Ultralytics).
  o.save_conf = false;
  predict(*model_, kNames, {(d / "shot.jpg").string()}, o, (d / "run2").string());
  std::istringstream txt(read_text(d / "run2/labels/shot.txt"));
  std::string first;
  std::getline(txt, first);
  std::istringstream f(first);
  int fields = 0;
  for (std::string t; f >> t;) ++fields;
  EXPECT_EQ(fields, 5) << first;
  o.nms.conf_thres = 0.99;
  const auto none = predict(*model_, kNames, {(d / "shot.jpg").string()}, o, (d / "run3").string());
  EXPECT_EQ(none[0].boxes.sizes(), (Shape{0, 6}));
  EXPECT_FALSE(fs::exists(d / "run3/labels/shot.txt"));
  const nlohmann::json j = nlohmann::json::parse(read_text(d / "run3/predictions.json"));
  EXPECT_TRUE(j.at(0).at("detections").empty());
}

TEST_F(YoloPredict, CollidingNamesAndErrors) {
  TempDir d;
  write_scene(d / "a/img.png", 64, 96);
  write_scene(d / "b/img.png", 64, 96);
  PredictOptions o = low_conf(64);
  predict(*model_, {}, {(d / "a/img.png").string(), (d / "b/img.png").string()}, o, (d / "out").string());
  EXPECT_TRUE(fs::exists(d / "out/img.png"));
  EXPECT_TRUE(fs::exists(d / "out/img_2.png"));
  // Without names the classes are called "class<i>" (Ultralytics' default_class_names).
  const nlohmann::json j = nlohmann::json::parse(read_text(d / "out/predictions.json"));
  ASSERT_EQ(j.size(), 2u);
  ASSERT_FALSE(j[0].at("detections").empty());
  for (const auto& det : j[0].at("detections"))
    EXPECT_EQ(det.at("name").get<std::string>(), "class" + std::to_string(det.at("class").get<int64_t>()));

  const std::vector<std::string> src{(d / "a/img.png").string()};
  EXPECT_THROW(predict(*model_, {"one", "two"}, src, o), ValueError);  // names != nc
  PredictOptions bad = o;
  bad.nms.classes = {3};
  EXPECT_THROW(predict(*model_, kNames, src, bad), ValueError);
  bad = o;
  bad.nms.conf_thres = 1.5;
  EXPECT_THROW(predict(*model_, kNames, src, bad), ValueError);
  bad = o;
  bad.imgsz = 0;
  EXPECT_THROW(predict(*model_, kNames, src, bad), ValueError);
  EXPECT_THROW(predict(*model_, kNames, {(d / "missing.png").string()}, o), IOError);
  vision::testing::write_file(d / "broken.png", "not a png");
  EXPECT_THROW(predict(*model_, kNames, {(d / "broken.png").string()}, o), IOError);
  // One unreadable image among readable ones is skipped (a warning); the others are predicted.
  const std::vector<ImagePrediction> some = predict(*model_, kNames, {(d / "broken.png").string(), src[0]}, o);
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some[0].path, src[0]);
  // imgsz not a multiple of 32 is rounded up (70 -> 96) with a warning.
  o.imgsz = 70;
  EXPECT_EQ(predict(*model_, kNames, src, o).size(), 1u);
}

// ---- drawing ----

TEST_F(YoloPredict, DrawDetectionsChangesOnlyAroundTheBox) {
  const Tensor original = solid(200, 300, {0, 0, 0});
  Tensor im = original.clone();
  const Tensor boxes = T({50, 60, 150, 140, 0.87, 1}, {1, 6});
  draw_detections(im, boxes, kNames);  // lw = max(round(503 / 2 * 0.003), 2) = 2
  const auto color = class_color(1);
  // The top edge has pixels of exactly the class colour.
  bool edge = false;
  for (int64_t x = 60; x < 140; ++x)
    edge |= px(im, 60, x, 0) == color[0] && px(im, 60, x, 1) == color[1] && px(im, 60, x, 2) == color[2];
  EXPECT_TRUE(edge);
  EXPECT_GT(px(im, 100, 50, 0) + px(im, 100, 50, 1) + px(im, 100, 50, 2), 0);   // left edge
  EXPECT_GT(px(im, 140, 100, 0) + px(im, 140, 100, 1) + px(im, 140, 100, 2), 0);  // bottom edge
  // The label sits on a filled box above the top-left corner.
  int64_t label_px = 0;
  for (int64_t y = 45; y < 58; ++y)
    for (int64_t x = 52; x < 100; ++x) label_px += px(im, y, x, 0) + px(im, y, x, 1) + px(im, y, x, 2) > 0;
  EXPECT_GT(label_px, 13 * 48 / 2);
  // The inside of the box and far away stay untouched.
  for (auto [y, x] : {std::pair<int64_t, int64_t>{100, 100}, {190, 290}, {5, 290}, {190, 5}, {130, 70}})
    for (int c = 0; c < 3; ++c) EXPECT_EQ(px(im, y, x, c), 0) << y << "," << x;

  // Without labels nothing lands above the box; line width 6 reaches 3 px out.
  Tensor plain = original.clone();
  draw_detections(plain, boxes, kNames, 6, /*show_labels=*/false);
  for (int64_t y = 30; y < 54; ++y)
    for (int64_t x = 60; x < 140; ++x) ASSERT_EQ(px(plain, y, x, 0) + px(plain, y, x, 1) + px(plain, y, x, 2), 0);
  EXPECT_GT(px(plain, 58, 100, 0) + px(plain, 58, 100, 1) + px(plain, 58, 100, 2), 0);
  // No boxes: unchanged.
  Tensor same = original.clone();
  draw_detections(same, empty({0, 6}, kFloat32), kNames);
  EXPECT_EQ(values(same.to(kInt32).sum())[0], 0);

  EXPECT_THROW(draw_detections(im, T({1, 2, 3, 4}, {1, 4}), kNames), ShapeError);
  EXPECT_THROW(draw_detections(im, I({1, 2, 3, 4, 1, 0}).reshape({1, 6}), kNames), DtypeError);
  EXPECT_THROW(draw_detections(im, boxes, kNames, -1), ValueError);
  Tensor grey = empty({10, 10}, kUInt8);
  EXPECT_THROW(draw_detections(grey, boxes, kNames), ShapeError);
}

TEST_F(YoloPredict, SmallImagesAreDrawnEnlargedWithLabelsInside) {
  // A 160 x 120 thumbnail is drawn at 640 x 480, the box scaled by 4 with it.
  const Tensor small = solid(120, 160, {0, 0, 0});
  const Tensor boxes = T({10, 20, 50, 60, 0.9, 0}, {1, 6});
  const Tensor big = draw_detections_readable(small, boxes, kNames);
  EXPECT_EQ(big.sizes(), (Shape{480, 640, 3}));
  EXPECT_EQ(values(small.to(kInt32).sum())[0], 0);  // the input is not changed
  const auto color = class_color(0);
  bool edge = false;
  for (int64_t x = 60; x < 180; ++x)
    edge |= px(big, 240, x, 0) == color[0] && px(big, 240, x, 1) == color[1] && px(big, 240, x, 2) == color[2];
  EXPECT_TRUE(edge) << "the bottom edge of the box lies at y = 60 * 4";
  EXPECT_EQ(px(big, 160, 120, 0) + px(big, 160, 120, 1) + px(big, 160, 120, 2), 0);  // inside: untouched
  // Large enough images are drawn at their own size; min_side 0 never enlarges.
  EXPECT_EQ(draw_detections_readable(solid(480, 700, {0, 0, 0}), boxes, kNames).sizes(), (Shape{480, 700, 3}));
  EXPECT_EQ(draw_detections_readable(small, boxes, kNames, 0, true, true, 0).sizes(), (Shape{120, 160, 3}));
  EXPECT_THROW(draw_detections_readable(small, boxes, kNames, 0, true, true, -1), ValueError);

  // A box at the bottom-right corner with no room above: its label stays inside the image.
  Tensor im = solid(40, 60, {0, 0, 0});
  draw_detections(im, T({55, 0, 60, 40, 0.5, 2}, {1, 6}), kNames, 2);
  int64_t lit_left = 0;
  for (int64_t y = 0; y < 40; ++y)
    for (int64_t x = 0; x < 50; ++x) lit_left += px(im, y, x, 0) + px(im, y, x, 1) + px(im, y, x, 2) > 0;
  EXPECT_GT(lit_left, 0) << "the label moved left into the image";
}

TEST_F(YoloPredict, ClassColoursCycleThePalette) {
  EXPECT_EQ(class_color(0), (std::array<uint8_t, 3>{0xFF, 0x2A, 0x04}));  // #042AFF as BGR
  EXPECT_EQ(class_color(20), class_color(0));
  EXPECT_NE(class_color(1), class_color(0));
}

// ---- options ----

TEST_F(YoloPredict, OptionsFromConfig) {
  Config c;
  PredictOptions o = predict_options(c);
  EXPECT_EQ(o.imgsz, 640);
  EXPECT_DOUBLE_EQ(o.nms.conf_thres, 0.25);
  EXPECT_DOUBLE_EQ(o.nms.iou_thres, 0.7);
  EXPECT_EQ(o.nms.max_det, 300);
  EXPECT_TRUE(o.nms.classes.empty());
  EXPECT_FALSE(o.nms.multi_label);
  EXPECT_TRUE(o.save);
  EXPECT_FALSE(o.save_txt);

  c.update({{"conf", "0.5"}, {"iou", "0.45"}, {"classes", "0, 2"}, {"imgsz", "320"}, {"save_txt", "true"},
            {"save_conf", "1"}, {"line_width", "3"}, {"show_conf", "false"}, {"agnostic_nms", "true"},
            {"max_det", "10"}, {"save", "no"}, {"verbose", "false"}});
  o = predict_options(c);
  EXPECT_DOUBLE_EQ(o.nms.conf_thres, 0.5);
  EXPECT_DOUBLE_EQ(o.nms.iou_thres, 0.45);
  EXPECT_EQ(o.nms.classes, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(o.imgsz, 320);
  EXPECT_TRUE(o.save_txt && o.save_conf && o.nms.agnostic);
  EXPECT_FALSE(o.save || o.show_conf || o.verbose);
  EXPECT_EQ(o.line_width, 3);
  EXPECT_EQ(o.nms.max_det, 10);
  c.set("classes", "[1]");
  EXPECT_EQ(predict_options(c).nms.classes, (std::vector<int64_t>{1}));

  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"classes", "a"}, {"classes", "1,,2"}, {"classes", "-1"}, {"conf", "1.5"}, {"iou", "-0.1"},
           {"imgsz", "0"}, {"max_det", "-1"}, {"line_width", "-2"}}) {
    Config bad;
    bad.set(k, v);
    EXPECT_THROW(predict_options(bad), ValueError) << k << "=" << v;
  }
}

}  // namespace
}  // namespace adept::testing
