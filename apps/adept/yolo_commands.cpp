// `adept train | val | predict | summary | export`: YOLO11 from the command line. Each subcommand lists and
// accepts the options of the engine's table (include/adept/models/yolo/config.h) that apply to
// it, so `--epochs 3`, `--epochs=3` and Ultralytics' `epochs=3` all work on train, `--help` shows
// each option's type and default, and an option of another mode (`adept predict epochs=3`) stops
// the command naming the subcommands it belongs to.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adept/errors.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/export.h"
#include "adept/models/yolo/predictor.h"
#include "adept/models/yolo/trainer.h"
#include "adept/models/yolo/validator.h"
#include "adept/models/yolo/yolo11.h"
#include "commands.h"

namespace adept::app {

namespace {

using models::yolo::Config;
using models::yolo::OptionSpec;

// The values given on the command line, by key. A bool option takes an optional value, so
// `--exist_ok`, `--exist_ok true`, `exist_ok=True` and Ultralytics' bare `exist_ok` (rewritten to
// `--exist_ok` by main) all set it. A repeated option keeps its last value. Options of other modes
// are registered hidden, so their error names the mode they belong to. Arguments CLI11 does not
// know (a mistyped key, a bare word) get an error naming the closest option of this mode.
struct GivenOptions {
  std::string mode;
  unsigned mode_bit = 0;
  std::map<std::string, std::string> text;
  std::map<std::string, CLI::Option*> options;

  // The OptionSpec of `key` when it applies to this mode; ValueError otherwise.
  const OptionSpec& spec(const std::string& key) const {
    const OptionSpec& s = models::yolo::find_option(key, mode_bit);
    std::string owners = models::yolo::mode_names(s.modes);  // "train, val" -> "`adept train`, `adept val`"
    for (size_t at = owners.find(", "); at != std::string::npos; at = owners.find(", ", at + 10))
      owners.replace(at, 2, "`, `adept ");
    ADEPT_CHECK(s.modes & mode_bit, ValueError,
                "YOLO option '{}' belongs to `adept {}`, not to `adept {}` (`adept {} --help` lists its options)",
                key, owners, mode, mode);
    return s;
  }

  Config config(const std::vector<std::string>& extras) const {
    Config c;
    for (const auto& [key, opt] : options) {
      if (opt->count() == 0) continue;
      const std::string& v = text.at(key);
      const OptionSpec& s = spec(key);  // an option of another mode stops here
      c.set(key, v.empty() && s.kind == OptionSpec::Kind::Bool ? "true" : v);
    }
    for (const std::string& arg : extras) {
      std::string a = arg;
      a.erase(0, a.find_first_not_of('-'));
      const size_t eq = a.find('=');
      if (eq != std::string::npos) {
        const std::string key = a.substr(0, eq);
        spec(key);
        ADEPT_CHECK(eq + 1 < a.size(), ValueError, "YOLO option '{}' is missing its value ({}=<value>)", key, key);
        c.set(key, a.substr(eq + 1));
        continue;
      }
      ADEPT_CHECK(!a.empty() && a.find_first_of("/.\\ ") == std::string::npos, ValueError,
                  "unexpected argument '{}': options are key=value or --key value", arg);
      spec(a);  // an unknown word: the error names the closest option
      throw ValueError(fmt::format("YOLO option '{}' needs a value: {}=<value> or --{} <value>", a, a, a));
    }
    return c;
  }
};

// How --help names an option's value.
std::string type_name(const OptionSpec& s) {
  switch (s.kind) {
    case OptionSpec::Kind::Int: return "INT";
    case OptionSpec::Kind::Float: return "FLOAT";
    case OptionSpec::Kind::Bool: return "BOOL";
    case OptionSpec::Kind::String: return s.value_name.empty() ? "STRING" : s.value_name;
  }
  return "";
}

CLI::App* add_yolo_subcommand(CLI::App& app, const std::string& name, unsigned mode_bit, const std::string& description,
                              const std::string& examples, std::function<void(const Config&)> run) {
  auto given = std::make_shared<GivenOptions>();
  given->mode = name;
  given->mode_bit = mode_bit;
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->allow_extras();
  cmd->footer("Examples (options as key=value or --key value):\n" + examples);
  for (const OptionSpec& s : models::yolo::option_specs()) {
    // Within its own subcommand's help an option needs no "predict: " and shows that mode's default.
    std::string help = s.help, default_value = s.default_value;
    if (help.rfind(name + ": ", 0) == 0) help.erase(0, name.size() + 2);
    if (s.key == "conf" && default_value.empty()) {
      default_value = fmt::format("{}", models::yolo::default_conf(mode_bit));
      help = name == "train" ? "confidence threshold of the validation after each epoch" : "confidence threshold";
    }
    if (s.key == "batch" && mode_bit == OptionSpec::kExport) {
      default_value = "1";
      help = "the exported input's batch (fixed unless dynamic)";
    }
    if (s.key == "imgsz" && mode_bit == OptionSpec::kExport)
      help = "input image size: one integer, a multiple of 32 (square input; default: the checkpoint's)";
    CLI::Option* opt = given->options[s.key] = cmd->add_option("--" + s.key, given->text[s.key], help);
    opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->type_name(type_name(s))->default_str(default_value);
    if (s.kind == OptionSpec::Kind::Bool) opt->expected(0, 1);
    opt->group((s.modes & mode_bit) ? "Options" : "");  // "": hidden, an option of another mode
  }
  cmd->callback([given, run, cmd, mode_bit] {
    const Config config = given->config(cmd->remaining());  // every rank checks the options
    // Under mpirun only `train` is data-parallel; val, predict, summary and export run once, on rank 0, rather
    // than N times into the same run folder.
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (mode_bit != OptionSpec::kTrain && rank && std::atoi(rank) != 0) return;
    run(config);
  });
  return cmd;
}

}  // namespace

bool is_yolo_flag(const std::string& word) {
  for (const OptionSpec& s : models::yolo::option_specs())
    if (s.key == word) return s.kind == OptionSpec::Kind::Bool;
  return false;
}

void register_yolo_commands(CLI::App& app) {
  using OS = OptionSpec;
  add_yolo_subcommand(app, "train", OS::kTrain,
                      "Train YOLO11 (default: yolo11n on the built-in synthetic shapes dataset; data=<yaml or folder> "
                      "for your own). Ctrl-C saves a checkpoint; resume=True continues. Without data=, training uses "
                      "the built-in data's own defaults (imgsz=96 epochs=25 batch=16 nbs=16 optimizer=AdamW lr0=0.002 "
                      "cos_lr=True cls=1.0 close_mosaic=3 ...) in place of Ultralytics' defaults, which the options "
                      "below show.",
                      "  adept train epochs=5 name=shapes5           # the built-in shapes data, 5 epochs\n"
                      "  adept train data=coco128.yaml imgsz=320 epochs=30 batch=16 workers=2 --device vulkan\n",
                      [](const Config& c) {
                        const models::yolo::TrainResult r = models::yolo::train(c);
                        if (!r.save_dir.empty())  // not on the ranks other than 0 of a data-parallel run
                          fmt::print("results: {}\nweights: {}{}\n", r.save_dir, r.last,
                                     r.best.empty() ? "" : fmt::format(" (best: {})", r.best));
                        // Interrupted (Ctrl-C): exit 130 as a shell does for SIGINT, so `train && predict` stops.
                        if (r.interrupted) throw CLI::RuntimeError(130);
                      });
  add_yolo_subcommand(app, "val", OS::kVal,
                      "Validate a YOLO11 checkpoint (COCO-style mAP50 and mAP50-95, per-class table) on the data it "
                      "was trained on, or data=.",
                      "  adept val model=runs/detect/quickstart/weights/best.safetensors\n"
                      "  adept val model=best.safetensors data=coco128.yaml imgsz=320 batch=8 conf=0.01\n",
                      [](const Config& c) {
                        const models::yolo::ValidationResult r = models::yolo::val(c);
                        fmt::print("mAP50 {:.4f} mAP50-95 {:.4f}\n", r.metrics.map50, r.metrics.map50_95);
                        if (!r.save_dir.empty()) fmt::print("plots in {}\n", r.save_dir);
                      });
  add_yolo_subcommand(app, "predict", OS::kPredict,
                      "Detect objects in images (source=<image, folder, .txt list or comma-separated paths>; default: "
                      "validation images of the built-in data); writes annotated images and predictions.json "
                      "(labels/*.txt with save_txt=True).",
                      "  adept predict model=runs/detect/quickstart/weights/best.safetensors\n"
                      "  adept predict model=best.safetensors source=path/to/images conf=0.4 save_txt=True\n",
                      [](const Config& c) {
                        const models::yolo::PredictRun r = models::yolo::predict(c);
                        fmt::print("{} images; results in {}\n", r.predictions.size(), r.save_dir);
                      });
  add_yolo_subcommand(app, "summary", OS::kSummary,
                      "Print the layers, parameters and GFLOPs of a YOLO11 model at imgsz.",
                      "  adept summary model=yolo11s imgsz=640\n"
                      "  adept summary model=runs/detect/quickstart/weights/best.safetensors\n",
                      [](const Config& c) {
                        models::yolo::LoadedModel m = models::yolo::load_model(c.str("model"));
                        fmt::print("{}", models::yolo::summary(*m.model, c.integer("imgsz")).table());
                      });
  add_yolo_subcommand(app, "export", OS::kExport,
                      "Export a YOLO11 model to ONNX (format=onnx): the evaluation-mode graph of Ultralytics' export, "
                      "input `images` (batch, 3, imgsz, imgsz), output `output0` (batch, 4 + nc, anchors) of xywh "
                      "boxes in pixels and class scores, BatchNorm folded; written next to the checkpoint as .onnx.",
                      "  adept export model=runs/detect/quickstart/weights/best.safetensors format=onnx\n"
                      "  adept export model=best.safetensors imgsz=320 dynamic=True opset=13\n",
                      [](const Config& c) {
                        const models::yolo::OnnxExportResult r = models::yolo::export_model(c);
                        fmt::print("exported {} (ONNX opset {}, IR {}): images [{}] -> output0 [{}]\n", r.path, r.opset,
                                   r.ir_version, fmt::join(r.input_shape, ", "), fmt::join(r.output_shape, ", "));
                      });
}

}  // namespace adept::app
