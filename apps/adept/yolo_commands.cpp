// `adept train | val | predict | summary`: YOLO11 from the command line. Every option of the
// engine's table (include/adept/models/yolo/config.h) is registered on each subcommand, so
// `--epochs 3`, `--epochs=3` and Ultralytics' `epochs=3` all work and `--help` lists them.
#include <map>
#include <memory>

#include <fmt/format.h>

#include "adept/errors.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
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
// `--exist_ok` by main) all set it. A repeated option keeps its last value. Arguments CLI11 does
// not know (a mistyped key, a bare word) reach Config::set, whose error names the closest option.
struct GivenOptions {
  std::map<std::string, std::string> text;
  std::map<std::string, CLI::Option*> options;

  Config config(const std::vector<std::string>& extras) const {
    Config c;
    for (const auto& [key, opt] : options) {
      if (opt->count() == 0) continue;
      const std::string& v = text.at(key);
      c.set(key, v.empty() && c.spec(key).kind == OptionSpec::Kind::Bool ? "true" : v);
    }
    for (const std::string& arg : extras) {
      std::string a = arg;
      a.erase(0, a.find_first_not_of('-'));
      const size_t eq = a.find('=');
      if (eq != std::string::npos) {
        const std::string key = a.substr(0, eq);
        ADEPT_CHECK(eq + 1 < a.size(), ValueError, "YOLO option '{}' is missing its value ({}=<value>)", key, key);
        c.set(key, a.substr(eq + 1));
        continue;
      }
      ADEPT_CHECK(!a.empty() && a.find_first_of("/.\\ ") == std::string::npos, ValueError,
                  "unexpected argument '{}': options are key=value or --key value", arg);
      c.spec(a);  // an unknown word: the error names the closest option
      throw ValueError(fmt::format("YOLO option '{}' needs a value: {}=<value> or --{} <value>", a, a, a));
    }
    return c;
  }
};

CLI::App* add_yolo_subcommand(CLI::App& app, const std::string& name, const std::string& description,
                              std::function<void(const Config&)> run) {
  auto given = std::make_shared<GivenOptions>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->allow_extras();
  for (const OptionSpec& s : models::yolo::option_specs()) {
    const std::string flag = "--" + s.key;
    const std::string help = s.default_value.empty() ? s.help : fmt::format("{} (default: {})", s.help, s.default_value);
    CLI::Option* opt = given->options[s.key] = cmd->add_option(flag, given->text[s.key], help);
    opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    if (s.kind == OptionSpec::Kind::Bool) opt->expected(0, 1);
  }
  cmd->callback([given, run, cmd] { run(given->config(cmd->remaining())); });
  return cmd;
}

}  // namespace

bool is_yolo_flag(const std::string& word) {
  for (const OptionSpec& s : models::yolo::option_specs())
    if (s.key == word) return s.kind == OptionSpec::Kind::Bool;
  return false;
}

void register_yolo_commands(CLI::App& app) {
  add_yolo_subcommand(app, "train",
                      "Train YOLO11 (default: yolo11n on the built-in synthetic shapes dataset; data=<yaml or folder> "
                      "for your own). Ctrl-C saves a checkpoint; resume=True continues.",
                      [](const Config& c) {
                        const models::yolo::TrainResult r = models::yolo::train(c);
                        fmt::print("results: {}\nweights: {}{}\n", r.save_dir, r.last,
                                   r.best.empty() ? "" : fmt::format(" (best: {})", r.best));
                        // Interrupted (Ctrl-C): exit 130 as a shell does for SIGINT, so `train && predict` stops.
                        if (r.interrupted) throw CLI::RuntimeError(130);
                      });
  add_yolo_subcommand(app, "val", "Validate a YOLO11 checkpoint (COCO-style mAP50 and mAP50-95, per-class table).",
                      [](const Config& c) {
                        const models::yolo::ValidationResult r = models::yolo::val(c);
                        fmt::print("mAP50 {:.4f} mAP50-95 {:.4f}\n", r.metrics.map50, r.metrics.map50_95);
                      });
  add_yolo_subcommand(app, "predict",
                      "Detect objects in images (source=<image, folder, .txt list or comma-separated paths>); writes "
                      "annotated images and predictions.json (labels/*.txt with save_txt=True).",
                      [](const Config& c) {
                        const models::yolo::PredictRun r = models::yolo::predict(c);
                        fmt::print("{} images; results in {}\n", r.predictions.size(), r.save_dir);
                      });
  add_yolo_subcommand(app, "summary", "Print the layers, parameters and GFLOPs of a YOLO11 model at imgsz.",
                      [](const Config& c) {
                        models::yolo::LoadedModel m = models::yolo::load_model(c.str("model"));
                        fmt::print("{}", models::yolo::summary(*m.model, c.integer("imgsz")).table());
                      });
}

}  // namespace adept::app
