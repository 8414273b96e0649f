// YOLO11 prediction: options, pre-processing and the predict loop with its saved outputs
// (include/adept/models/yolo/predictor.h).
#include "adept/models/yolo/predictor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "adept/autograd.h"
#include "adept/errors.h"
#include "adept/models/yolo/draw.h"
#include "adept/ops/creation.h"
#include "adept/vision/transforms.h"
#include "io/atomic_file.h"
#include "models/yolo/engine/setup.h"
#include "ops/helpers.h"
#include "vision/yolo_labels.h"

namespace adept::models::yolo {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// "0,2", "[0, 2]" -> {0, 2}; "" -> {} (all classes).
std::vector<int64_t> parse_classes(std::string text) {
  std::replace(text.begin(), text.end(), '[', ' ');
  std::replace(text.begin(), text.end(), ']', ' ');
  std::vector<int64_t> out;
  if (text.find_first_not_of(" \t") == std::string::npos) return out;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    const std::string v = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    char* end = nullptr;
    const long long c = v.empty() ? -1 : std::strtoll(v.c_str(), &end, 10);
    ADEPT_CHECK(!v.empty() && end == v.c_str() + v.size() && c >= 0, ValueError,
                "YOLO option classes='{}': expected comma-separated class indices >= 0, got '{}'", text, v);
    out.push_back(c);
    start = comma + 1;
  }
  return out;
}

// predict_options' ranges, plus the class filter against the model's nc (when nc > 0).
void check_options(const PredictOptions& o, int64_t nc) {
  ADEPT_CHECK(o.imgsz > 0, ValueError, "predict: imgsz must be positive, got {}", o.imgsz);
  ADEPT_CHECK(o.nms.conf_thres >= 0 && o.nms.conf_thres <= 1, ValueError, "predict: conf must be in [0, 1], got {}",
              o.nms.conf_thres);
  ADEPT_CHECK(o.nms.iou_thres >= 0 && o.nms.iou_thres <= 1, ValueError, "predict: iou must be in [0, 1], got {}",
              o.nms.iou_thres);
  ADEPT_CHECK(o.nms.max_det >= 0, ValueError, "predict: max_det must be >= 0, got {}", o.nms.max_det);
  ADEPT_CHECK(o.line_width >= 0, ValueError, "predict: line_width must be >= 0 (0: automatic), got {}",
              o.line_width);
  for (int64_t c : o.nms.classes)
    ADEPT_CHECK(c >= 0 && (nc <= 0 || c < nc), ValueError, "predict: classes filter {} is outside [0, {})", c, nc);
}

// Restores a module's training mode on scope exit (predict runs in eval mode).
class EvalScope {
 public:
  explicit EvalScope(nn::Module& m) : m_(m), was_training_(m.is_training()) { m_.eval(); }
  ~EvalScope() {
    if (was_training_) m_.train(true);
  }
  EvalScope(const EvalScope&) = delete;
  EvalScope& operator=(const EvalScope&) = delete;

 private:
  nn::Module& m_;
  bool was_training_;
};

double round5(double v) { return std::nearbyint(v * 1e5) / 1e5; }

std::string class_name(int64_t cls, const std::vector<std::string>& names) {
  return cls >= 0 && cls < static_cast<int64_t>(names.size()) ? names[cls] : std::to_string(cls);
}

// Output file names: the source's file name (".jpg" appended when it has no image extension),
// "<stem>_2<ext>", "<stem>_3<ext>" ... for names already used in this run.
class OutputNames {
 public:
  std::string next(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    if (!vision::detail::is_image_file(name)) name += ".jpg";
    const fs::path p(name);
    std::string out = name;
    for (int k = 2; used_.count(out); ++k) out = fmt::format("{}_{}{}", p.stem().string(), k, p.extension().string());
    used_[out] = true;
    return out;
  }

 private:
  std::map<std::string, bool> used_;
};

// Ultralytics' save_txt: "cls cx cy w h[ conf]" normalised to the image, "%g" numbers.
void write_txt(const fs::path& file, const Tensor& boxes, int64_t height, int64_t width, bool save_conf) {
  std::string text;
  const float* p = boxes.data_ptr<float>();
  const auto w = static_cast<double>(width), h = static_cast<double>(height);
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    const double x1 = p[6 * i], y1 = p[6 * i + 1], x2 = p[6 * i + 2], y2 = p[6 * i + 3];
    text += fmt::format("{:g} {:g} {:g} {:g} {:g}", p[6 * i + 5], (x1 + x2) / 2 / w, (y1 + y2) / 2 / h,
                        (x2 - x1) / w, (y2 - y1) / h);
    text += save_conf ? fmt::format(" {:g}\n", p[6 * i + 4]) : "\n";
  }
  std::ofstream f(file, std::ios::binary);
  f << text;
  ADEPT_CHECK(f.good(), IOError, "predict: cannot write '{}'", file.string());
}

nlohmann::json to_json(const ImagePrediction& r, const std::vector<std::string>& names) {
  nlohmann::json dets = nlohmann::json::array();
  const float* p = r.boxes.data_ptr<float>();
  for (int64_t i = 0; i < r.boxes.size(0); ++i) {
    const float* b = p + 6 * i;
    const auto cls = static_cast<int64_t>(b[5]);
    dets.push_back({{"class", cls},
                    {"name", class_name(cls, names)},
                    {"confidence", round5(b[4])},
                    {"box", {round5(b[0]), round5(b[1]), round5(b[2]), round5(b[3])}}});
  }
  return {{"image", r.path}, {"width", r.width}, {"height", r.height}, {"detections", std::move(dets)}};
}

// Ultralytics' per-image log text: "2 circles, 1 square" (classes in id order), or "(no detections)".
std::string describe(const Tensor& boxes, const std::vector<std::string>& names) {
  std::map<int64_t, int64_t> counts;
  const float* p = boxes.data_ptr<float>();
  for (int64_t i = 0; i < boxes.size(0); ++i) ++counts[static_cast<int64_t>(p[6 * i + 5])];
  if (counts.empty()) return "(no detections)";
  std::string s;
  for (const auto& [cls, n] : counts)
    s += fmt::format("{}{} {}{}", s.empty() ? "" : ", ", n, class_name(cls, names), n > 1 ? "s" : "");
  return s;
}

void create_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  ADEPT_CHECK(!ec && fs::is_directory(dir), IOError, "predict: cannot create the folder '{}': {}", dir.string(),
              ec ? ec.message() : "a file of that name exists");
}

}  // namespace

PredictOptions predict_options(const Config& config) {
  PredictOptions o;
  const int64_t imgsz = config.integer("imgsz");
  ADEPT_CHECK(imgsz > 0 && imgsz <= 1 << 16, ValueError, "YOLO option imgsz={} must be a positive image size", imgsz);
  o.imgsz = static_cast<int>(imgsz);
  o.nms = detail::nms_options(config, default_conf(OptionSpec::kPredict), /*multi_label=*/false, "predict");
  o.nms.classes = parse_classes(config.str("classes"));
  o.save = config.flag("save");
  o.save_txt = config.flag("save_txt");
  o.save_conf = config.flag("save_conf");
  const int64_t lw = config.integer("line_width");
  ADEPT_CHECK(lw >= 0 && lw <= 1 << 12, ValueError, "YOLO option line_width={} must be >= 0 (0: automatic)", lw);
  o.line_width = static_cast<int>(lw);
  o.show_labels = config.flag("show_labels");
  o.show_conf = config.flag("show_conf");
  o.verbose = config.flag("verbose");
  check_options(o, 0);
  return o;
}

PreparedImage preprocess(const Tensor& image, int imgsz, int stride) {
  ADEPT_CHECK(stride > 0 && imgsz > 0 && imgsz % stride == 0, ValueError,
              "preprocess: imgsz must be a positive multiple of the stride, got imgsz {} and stride {}", imgsz, stride);
  const vision::LabeledImage in{image, empty({0, 4}, kFloat32), empty({0}, kFloat32)};
  const vision::Letterboxed lb = vision::letterbox(in, imgsz, imgsz, /*scaleup=*/true, 114, /*auto_stride=*/stride);
  // BGR -> RGB, HWC -> CHW, uint8 -> [0, 1] (torch's `im.float() / 255`), in one pass.
  const int64_t h = lb.out.image.size(0), w = lb.out.image.size(1), hw = h * w;
  Tensor x = empty({1, 3, h, w}, kFloat32);
  const uint8_t* src = lb.out.image.data_ptr<uint8_t>();
  float* dst = x.data_ptr<float>();
  for (int64_t i = 0; i < hw; ++i)
    for (int64_t c = 0; c < 3; ++c) dst[c * hw + i] = static_cast<float>(src[3 * i + 2 - c]) / 255.0f;
  return {x, lb.gain, lb.pad_x, lb.pad_y};
}

std::vector<ImagePrediction> predict(Yolo11& model, const std::vector<std::string>& class_names,
                                     const std::vector<std::string>& sources, const PredictOptions& options,
                                     const std::string& save_dir) {
  ADEPT_CHECK(class_names.empty() || static_cast<int64_t>(class_names.size()) == model.nc, ValueError,
              "predict: expected {} class names (the model's nc) or none, got {}", model.nc, class_names.size());
  std::vector<std::string> names = class_names;
  for (int64_t c = static_cast<int64_t>(names.size()); c < model.nc; ++c) names.push_back(fmt::format("class{}", c));
  check_options(options, model.nc);
  const auto& strides = model.layer_strides();
  const int stride = static_cast<int>(*std::max_element(strides.begin(), strides.end()));
  const int imgsz = (options.imgsz + stride - 1) / stride * stride;
  if (imgsz != options.imgsz)
    spdlog::warn("predict: imgsz={} is not a multiple of the model stride {}; using {}", options.imgsz, stride, imgsz);

  const fs::path out_dir(save_dir);
  if (!save_dir.empty()) create_folder(options.save_txt ? out_dir / "labels" : out_dir);

  const Device device = model.parameters().front().device();
  EvalScope eval(model);
  NoGradGuard no_grad;
  OutputNames out_names;
  nlohmann::json records = nlohmann::json::array();
  std::vector<ImagePrediction> results;
  double t_pre = 0, t_inf = 0, t_post = 0;
  Shape last_shape;
  std::vector<std::string> unreadable;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string& path = sources[i];
    auto t0 = Clock::now();
    Tensor image;
    try {
      image = vision::imread(path);
    } catch (const IOError& e) {  // as Ultralytics: a warning, and the other images go on
      spdlog::warn("predict: skipping image {}/{}: {}", i + 1, sources.size(), e.what());
      unreadable.push_back(path);
      continue;
    }
    const PreparedImage prep = preprocess(image, imgsz, stride);
    const double pre = ms_since(t0);

    t0 = Clock::now();
    const Tensor preds = model.forward(prep.input.to(device)).to(kCPU);
    const double inf = ms_since(t0);

    t0 = Clock::now();
    ImagePrediction r{path, image.size(0), image.size(1), Tensor()};
    const Tensor det = non_max_suppression(preds, options.nms).at(0);
    const Tensor ratio_pad = tensor(std::vector<double>{prep.gain, prep.pad_x, prep.pad_y}, kFloat64);
    r.boxes = scale_boxes(det, ratio_pad, {r.height, r.width}).to(kFloat32).contiguous();
    const double post = ms_since(t0);
    t_pre += pre, t_inf += inf, t_post += post;
    last_shape = prep.input.sizes();

    if (!save_dir.empty()) {
      const std::string name = out_names.next(path);
      if (options.save) {
        vision::imwrite((out_dir / name).string(),
                        draw_detections_readable(image, r.boxes, names, options.line_width, options.show_labels,
                                                 options.show_conf));
      }
      if (options.save_txt && r.boxes.size(0) > 0)
        write_txt(out_dir / "labels" / (fs::path(name).stem().string() + ".txt"), r.boxes, r.height, r.width,
                  options.save_conf);
      records.push_back(to_json(r, names));
    }
    if (options.verbose)
      spdlog::info("image {}/{} {}: {}x{} {}, {:.1f}ms", i + 1, sources.size(), path, prep.input.size(2),
                   prep.input.size(3), describe(r.boxes, names), inf);
    results.push_back(std::move(r));
  }

  ADEPT_CHECK(sources.empty() || unreadable.size() < sources.size(), IOError,
              "predict: none of the {} images could be read (first: '{}')", sources.size(),
              unreadable.empty() ? "" : unreadable.front());
  if (!save_dir.empty()) {
    const std::string text = records.dump(2) + "\n";
    io::AtomicFile f((out_dir / "predictions.json").string());
    f.write(text.data(), text.size());
    f.commit();
  }
  if (options.verbose && !results.empty()) {
    const auto n = static_cast<double>(results.size());
    spdlog::info("Speed: {:.1f}ms preprocess, {:.1f}ms inference, {:.1f}ms postprocess per image at shape {}",
                 t_pre / n, t_inf / n, t_post / n, shape_str(last_shape));
    if (!save_dir.empty()) spdlog::info("Results saved to {}", out_dir.string());
  }
  return results;
}

}  // namespace adept::models::yolo
