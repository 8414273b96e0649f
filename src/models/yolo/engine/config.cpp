// The option table of the YOLO engine and Config's parsing (include/adept/models/yolo/config.h).
#include "adept/models/yolo/config.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <nlohmann/json.hpp>

#include "adept/errors.h"

namespace adept::models::yolo {

namespace {

using K = OptionSpec::Kind;
// The modes of each row: train, val, predict, summary, export.
constexpr unsigned T = OptionSpec::kTrain, V = OptionSpec::kVal, P = OptionSpec::kPredict, S = OptionSpec::kSummary,
                   E = OptionSpec::kExport;

std::vector<OptionSpec> make_specs() {
  return {
      // What to run on.
      {"model", K::String, "yolo11n",
       "model: a scale name (yolo11n/s/m/l/x) or a checkpoint (.safetensors)", T | V | P | S | E, "SCALE|PATH"},
      {"data", K::String, "",
       "dataset YAML or folder; empty or 'shapes': the built-in synthetic shapes dataset", T | V, "PATH"},
      {"source", K::String, "",
       "predict: an image, a folder, a .txt list of images, or comma-separated paths", P, "PATH"},
      {"device", K::String, "cpu", "device to run on: cpu or vulkan", T | V | P, "DEVICE"},
      {"imgsz", K::Int, "640", "input image size (pixels, a multiple of 32)", T | V | P | S | E},
      {"batch", K::Int, "16", "images per batch (export: the input's batch, default 1)", T | V | E},
      {"workers", K::Int, "8", "data-loader worker processes (at most the number of CPUs)", T | V},
      // Training.
      {"epochs", K::Int, "100", "epochs to train", T},
      {"patience", K::Int, "100", "stop after this many epochs without a better fitness (0: never)", T},
      {"optimizer", K::String, "auto", "optimizer: auto, SGD, AdamW or Adam", T, "NAME"},
      {"lr0", K::Float, "0.01", "initial learning rate", T},
      {"lrf", K::Float, "0.01", "final learning rate as a fraction of lr0", T},
      {"momentum", K::Float, "0.937", "SGD momentum / Adam beta1", T},
      {"weight_decay", K::Float, "0.0005", "weight decay of the conv and linear weights", T},
      {"warmup_epochs", K::Float, "3.0", "warmup length in epochs (at least 100 iterations)", T},
      {"warmup_min_iters", K::Int, "100", "the warmup lasts at least this many iterations (Ultralytics: 100)", T},
      {"warmup_momentum", K::Float, "0.8", "momentum at the start of the warmup", T},
      {"warmup_bias_lr", K::Float, "0.1", "bias learning rate at the start of the warmup", T},
      {"cos_lr", K::Bool, "false", "cosine learning-rate schedule instead of linear", T},
      {"nbs", K::Int, "64", "nominal batch size: gradients are accumulated over about nbs images", T},
      {"close_mosaic", K::Int, "10", "turn mosaic off for the last this many epochs", T},
      {"box", K::Float, "7.5", "box (CIoU) loss gain", T},
      {"cls", K::Float, "0.5", "class (BCE) loss gain", T},
      {"dfl", K::Float, "1.5", "distribution focal loss gain", T},
      {"class_weights", K::String, "", "comma-separated per-class weights of the class loss (nc values)", T, "FLOATS"},
      {"fraction", K::Float, "1.0", "train on this fraction of the train split (its first images)", T},
      {"seed", K::Int, "0", "random seed (model initialisation, data order, augmentation)", T | V},
      {"val", K::Bool, "true", "validate after every epoch", T},
      {"save_period", K::Int, "-1", "also save a checkpoint every this many epochs (-1: off)", T},
      {"resume", K::String, "",
       "resume training: true (the latest last.safetensors) or a checkpoint path", T, "BOOL|PATH"},
      {"amp", K::Bool, "true", "mixed precision on the GPU: float16 autocast, loss scaling (CPU: float32)", T},
      {"sync_bn", K::Bool, "false",
       "mpirun data-parallel runs: SyncBatchNorm (statistics of the global batch; YOLOv5's --sync-bn)", T},
      {"project", K::String, "runs/detect", "folder of the runs", T | V | P, "DIR"},
      {"name", K::String, "",
       "run folder name (default: the mode; a number is appended when it exists)", T | V | P, "NAME"},
      {"exist_ok", K::Bool, "false", "reuse an existing run folder instead of numbering a new one", T | V | P},
      {"verbose", K::Bool, "true", "print per-class results and progress", T | V | P},
      {"plots", K::Bool, "true",
       "save plots to the run folder (val batches, PR/F1/P/R curves, confusion matrices; train also results, labels, "
       "train batches)", T | V},
      {"tensorboard", K::Bool, "false", "train: also write TensorBoard event files to the run folder", T},
      // Augmentation (training).
      {"hsv_h", K::Float, "0.015", "hue jitter (fraction)", T},
      {"hsv_s", K::Float, "0.7", "saturation jitter (fraction)", T},
      {"hsv_v", K::Float, "0.4", "value jitter (fraction)", T},
      {"degrees", K::Float, "0.0", "rotation range (+/- degrees)", T},
      {"translate", K::Float, "0.1", "translation range (fraction of the image size)", T},
      {"scale", K::Float, "0.5", "scale range (gain 1 +/- scale)", T},
      {"shear", K::Float, "0.0", "shear range (+/- degrees)", T},
      {"perspective", K::Float, "0.0", "perspective range (0 to 0.001)", T},
      {"flipud", K::Float, "0.0", "probability of an up-down flip", T},
      {"fliplr", K::Float, "0.5", "probability of a left-right flip", T},
      {"mosaic", K::Float, "1.0", "probability of a 4-image mosaic", T},
      // Validation and prediction.
      {"split", K::String, "val", "val: the dataset split to evaluate", V, "SPLIT"},
      {"conf", K::Float, "", "confidence threshold (default 0.001 for val, 0.25 for predict)", T | V | P},
      {"iou", K::Float, "0.7", "NMS IoU threshold", T | V | P},
      {"max_det", K::Int, "300", "at most this many detections per image", T | V | P},
      {"classes", K::String, "", "keep only these comma-separated class indices", P, "INTS"},
      {"agnostic_nms", K::Bool, "false", "class-agnostic NMS", T | V | P},
      {"save", K::Bool, "true", "predict: save images with the boxes drawn", P},
      {"save_txt", K::Bool, "false", "predict: save labels/<image>.txt (class cx cy w h, normalised)", P},
      {"save_conf", K::Bool, "false", "predict: append the confidence to each save_txt line", P},
      {"line_width", K::Int, "0", "predict: box line width in pixels (0: from the image size)", P},
      {"show_labels", K::Bool, "true", "predict: draw class names", P},
      {"show_conf", K::Bool, "true", "predict: draw confidences", P},
      // Export (Ultralytics' export arguments of format=onnx).
      {"format", K::String, "onnx", "export: the file format (onnx)", E, "FORMAT"},
      {"dynamic", K::Bool, "false", "export: symbolic batch, height and width (ONNX dynamic axes)", E},
      {"opset", K::Int, "17", "export: ONNX opset (11 to 21)", E},
  };
}

const char* kind_name(K kind) {
  switch (kind) {
    case K::Int: return "an integer";
    case K::Float: return "a number";
    case K::Bool: return "true or false";
    case K::String: return "a string";
  }
  return "";
}

bool parse_bool(const std::string& s, bool& out) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "true" || l == "1" || l == "yes") return out = true, true;
  if (l == "false" || l == "0" || l == "no") return out = false, true;
  return false;
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

bool parse_int(const std::string& s, int64_t& out) {
  double d;
  if (!parse_double(s, d) || d != std::floor(d) || std::fabs(d) > 9e15) return false;
  out = static_cast<int64_t>(d);
  return true;
}

// Levenshtein distance, for "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<OptionSpec>& option_specs() {
  static const std::vector<OptionSpec> specs = make_specs();
  return specs;
}

double default_conf(unsigned mode) { return mode == OptionSpec::kPredict ? 0.25 : 0.001; }

std::string mode_names(unsigned modes) {
  std::string out;
  for (const auto& [bit, name] : {std::pair{T, "train"}, {V, "val"}, {P, "predict"}, {S, "summary"}, {E, "export"}})
    if (modes & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::string closest_option(const std::string& key, unsigned modes) {
  const OptionSpec* best = nullptr;
  for (const OptionSpec& s : option_specs())
    if ((s.modes & modes) && (!best || edit_distance(s.key, key) < edit_distance(best->key, key))) best = &s;
  // Suggest only a near miss (a typo), not the least distant of unrelated names.
  if (!best || edit_distance(best->key, key) > std::max<size_t>(1, key.size() / 3)) return "";
  return best->key;
}

Config::Config() {
  for (const OptionSpec& s : option_specs()) values_[s.key] = s.default_value;
}

const OptionSpec& find_option(const std::string& key, unsigned modes) {
  const auto& specs = option_specs();
  auto it = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.key == key; });
  if (it != specs.end()) return *it;
  const std::string near = closest_option(key, modes);
  ADEPT_CHECK(near.empty(), ValueError, "YOLO option '{}' is not a valid option; did you mean '{}'?", key, near);
  std::string helps;  // "`adept train --help`, `adept val --help`"
  for (unsigned bit = 1; bit <= modes; bit <<= 1)
    if (modes & bit) helps += fmt::format("{}`adept {} --help`", helps.empty() ? "" : ", ", mode_names(bit));
  throw ValueError(fmt::format("YOLO option '{}' is not a valid option ({} {} them)", key, helps,
                               std::has_single_bit(modes) ? "lists" : "list"));
}

const OptionSpec& Config::spec(const std::string& key) const { return find_option(key); }

void Config::set(const std::string& key, const std::string& value) {
  const OptionSpec& s = spec(key);
  bool b;
  double d;
  int64_t i;
  const bool ok = s.kind == K::String || (value.empty() && s.default_value.empty()) || (s.kind == K::Bool && parse_bool(value, b)) ||
                  (s.kind == K::Float && parse_double(value, d)) || (s.kind == K::Int && parse_int(value, i));
  ADEPT_CHECK(ok, ValueError, "YOLO option {}='{}' is invalid: expected {}", key, value, kind_name(s.kind));
  values_[key] = value;
  user_set_[key] = true;
}

void Config::update(const std::map<std::string, std::string>& values) {
  for (const auto& [k, v] : values) set(k, v);
}

void Config::set_default(const std::string& key, const std::string& value) {
  if (is_set(key)) return;
  set(key, value);
  user_set_[key] = false;
}

const std::string& Config::str(const std::string& key) const {
  spec(key);
  return values_.at(key);
}

int64_t Config::integer(const std::string& key) const {
  const OptionSpec& s = spec(key);
  int64_t i = 0;
  ADEPT_CHECK(s.kind == K::Int && parse_int(values_.at(key), i), ValueError,
              "YOLO option '{}' is {} ('{}'), not an integer", key, kind_name(s.kind), values_.at(key));
  return i;
}

double Config::number(const std::string& key) const {
  const OptionSpec& s = spec(key);
  double d = 0;
  ADEPT_CHECK((s.kind == K::Float || s.kind == K::Int) && parse_double(values_.at(key), d), ValueError,
              "YOLO option '{}' is {} ('{}'), not a number", key, kind_name(s.kind), values_.at(key));
  return d;
}

bool Config::flag(const std::string& key) const {
  const OptionSpec& s = spec(key);
  bool b = false;
  ADEPT_CHECK(s.kind == K::Bool && parse_bool(values_.at(key), b), ValueError,
              "YOLO option '{}' is {} ('{}'), not true or false", key, kind_name(s.kind), values_.at(key));
  return b;
}

bool Config::is_set(const std::string& key) const {
  spec(key);
  auto it = user_set_.find(key);
  return it != user_set_.end() && it->second;
}

std::string Config::to_json() const { return nlohmann::json(values_).dump(); }

Config Config::from_json(const std::string& json) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    ADEPT_CHECK(false, ValueError, "YOLO options: malformed JSON ({})", e.what());
  }
  ADEPT_CHECK(j.is_object(), ValueError, "YOLO options: expected a JSON object of strings");
  Config c;
  const auto& specs = option_specs();
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) continue;
    if (std::any_of(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.key == k; }))
      c.set(k, v.get<std::string>());
  }
  return c;
}

}  // namespace adept::models::yolo
