// `adept predict` (predictor.h): model, sources and run folder from the options, then predict().
#include <filesystem>

#include <spdlog/spdlog.h>

#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/predictor.h"
#include "models/yolo/engine/setup.h"

namespace adept::models::yolo {

namespace fs = std::filesystem;

namespace {

// The default source: the first val images of the built-in dataset, in name order.
std::string builtin_sample_images(const vision::DatasetConfig& data, size_t count) {
  std::vector<std::string> files;
  for (const auto& src : data.split("val"))
    for (const auto& e : fs::directory_iterator(src.path))
      if (e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  files.resize(std::min(files.size(), count));
  std::string joined;
  for (const std::string& f : files) joined += (joined.empty() ? "" : ",") + f;
  return joined;
}

}  // namespace

PredictRun predict(const Config& user_config, const LoadedModel* model) {
  Config config = user_config;
  LoadedModel loaded = model ? *model : load_model(config.str("model"));
  if (!loaded.checkpoint.empty()) config.set_default("imgsz", loaded.train_config.str("imgsz"));
  else if (!model)
    spdlog::warn("predict: model={} is a new, untrained model; pass a checkpoint (model=.../best.safetensors)",
                 config.str("model"));
  // Options, device and sources are checked before the run folder exists.
  const PredictOptions options = predict_options(config);
  loaded.model->to(detail::yolo_device(config.str("device"), "predict"));
  std::string source = config.str("source");
  if (source.empty()) {
    source = builtin_sample_images(detail::resolve_data("shapes"), 4);
    spdlog::info("predict: no source given; using images of the built-in dataset");
  }
  const std::vector<std::string> sources = resolve_sources(source);
  PredictRun run;
  run.save_dir = detail::make_run_dir(config, "predict");
  try {
    run.predictions = predict(*loaded.model, loaded.names, sources, options, run.save_dir);
  } catch (...) {
    // What predict() checks against the model (the class filter) or the images (none readable)
    // fails before it writes a file: leave no empty run folder behind.
    std::error_code ec;
    bool has_file = false;
    for (auto it = fs::recursive_directory_iterator(run.save_dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      has_file = has_file || it->is_regular_file(ec);
    if (!has_file) fs::remove_all(run.save_dir, ec);
    throw;
  }
  return run;
}

}  // namespace adept::models::yolo
