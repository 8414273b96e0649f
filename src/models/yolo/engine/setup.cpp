// Shared setup of the YOLO engine's modes (setup.h).
#include "models/yolo/engine/setup.h"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "adept/errors.h"
#include "adept/supported.h"
#include "adept/vision/detection_collate.h"
#include "adept/vision/synthetic_shapes.h"

namespace adept::models::yolo::detail {

bool is_builtin_data(const std::string& data) { return data.empty() || data == "shapes"; }

vision::DatasetConfig resolve_data(const std::string& data) {
  return vision::load_dataset_config(is_builtin_data(data) ? vision::ensure_synthetic_shapes() : data);
}

void apply_builtin_defaults(Config& config) {
  // Tuned with adept train itself (bench/yolo/tune_builtin.sh, bench/results/shapes_tuning_adept_*.json),
  // starting from the PyTorch mirror's choice (bench/yolo/tune_shapes.py): small images (96 px beat
  // 64 and 128 at equal time), no accumulation, AdamW at 0.002 with a cosine schedule, a half-epoch
  // warmup without Ultralytics' 100-iteration minimum, and twice the class-loss gain.
  config.set_default("imgsz", "96");
  config.set_default("epochs", "25");
  config.set_default("cos_lr", "True");
  config.set_default("cls", "1.0");
  config.set_default("batch", "16");
  config.set_default("nbs", "16");
  config.set_default("optimizer", "AdamW");
  config.set_default("lr0", "0.002");
  config.set_default("momentum", "0.9");
  config.set_default("warmup_epochs", "0.5");
  config.set_default("warmup_min_iters", "0");
  config.set_default("warmup_bias_lr", "0.0");
  config.set_default("close_mosaic", "3");
}

int loader_workers(int64_t workers) {
  ADEPT_CHECK(workers >= 0, ValueError, "YOLO option workers must be >= 0, got {}", workers);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return static_cast<int>(std::min<int64_t>(workers, std::max<long>(cpus, 1)));
}

namespace {

// Rank `rank`'s share of the order one process would load: the RandomSampler's permutation of the epoch
// (the loader's own with the same seed), padded by repetition to a multiple of the ranks, every
// world-th index from `rank` (DistributedSampler's split). So step i of the N ranks together loads the
// images of step i of one process with N times the batch.
class RankShard : public data::Sampler {
 public:
  RankShard(int64_t n, int world, int rank, bool shuffle, uint64_t seed)
      : n_(n), world_(world), rank_(rank), shuffle_(shuffle), order_(n, false, std::nullopt, seed) {}
  int64_t size() const override { return (n_ + world_ - 1) / world_; }
  std::vector<int64_t> indices(int64_t epoch) override {
    std::vector<int64_t> all;
    if (shuffle_) {
      all = order_.indices(epoch);
    } else {
      for (int64_t i = 0; i < n_; ++i) all.push_back(i);
    }
    for (int64_t k = 0; n_ > 0 && static_cast<int64_t>(all.size()) < size() * world_; ++k) all.push_back(all[k]);
    std::vector<int64_t> out;
    for (size_t i = static_cast<size_t>(rank_); i < all.size(); i += static_cast<size_t>(world_)) out.push_back(all[i]);
    return out;
  }

 private:
  int64_t n_;
  int world_, rank_;
  bool shuffle_;
  data::RandomSampler order_;
};

}  // namespace

std::unique_ptr<data::DataLoader> make_loader(std::shared_ptr<vision::DetectionDataset> dataset, int64_t batch,
                                              int workers, bool shuffle, uint64_t seed, int world_size,
                                              int rank) {
  ADEPT_CHECK(batch >= 1, ValueError, "YOLO option batch must be >= 1, got {}", batch);
  data::DataLoaderOptions o;
  o.batch_size = batch;
  if (world_size > 1) {
    o.sampler = std::make_shared<RankShard>(static_cast<int64_t>(dataset->size()), world_size, rank, shuffle, seed);
  } else {
    o.shuffle = shuffle;
  }
  o.num_workers = workers;
  o.persistent_workers = workers > 0;
  o.collate_fn = vision::detection_collate;
  o.seed = seed;
  return std::make_unique<data::DataLoader>(std::move(dataset), o);
}

Device yolo_device(const std::string& device, const char* mode) {
  Device d;
  try {
    d = Device(device);
  } catch (const Error& e) {
    throw ValueError(fmt::format("YOLO option device='{}' is invalid: {}", device, e.what()));
  }
  if (d.is_cpu()) return d;
  // Every op YOLO11's forward, loss, assigner, NMS and optimizers call, float32, with backward for
  // training: the registry lists all missing kernels at once, before any data or run folder.
  static const std::vector<std::string> kYoloOps = {
      "conv2d", "batch_norm", "silu", "max_pool2d", "interpolate", "cat", "split", "chunk", "stack", "view",
      "reshape", "permute", "transpose", "flatten", "narrow", "select", "squeeze", "unsqueeze", "copy_", "add",
      "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "atan", "cos", "sigmoid", "softmax", "log_softmax",
      "matmul", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "maximum", "minimum", "clamp",
      "floor", "ceil", "round", "abs", "isfinite", "where", "gt", "lt", "ge", "le", "eq", "logical_and",
      "logical_or", "any", "bmm", "cumsum", "topk", "sort", "arange", "meshgrid", "zeros", "full", "tensor",
      "binary_cross_entropy_with_logits", "SGD", "Adam", "AdamW"};
  const std::vector<std::string> missing = missing_kernels(kYoloOps, d, kFloat32, std::string(mode) == "train");
  if (!missing.empty()) {
    throw NotImplementedForDevice(fmt::format("{}: YOLO11 cannot run on device '{}' yet: it lacks {}; use device=cpu",
                                              mode, device, fmt::join(missing, ", ")));
  }
  return d;
}

NmsOptions nms_options(const Config& config, double default_conf, bool multi_label, const char* mode) {
  NmsOptions nms;
  nms.conf_thres = config.str("conf").empty() ? default_conf : config.number("conf");
  nms.iou_thres = config.number("iou");
  nms.max_det = config.integer("max_det");
  nms.agnostic = config.flag("agnostic_nms");
  nms.multi_label = multi_label;
  ADEPT_CHECK(nms.conf_thres >= 0 && nms.conf_thres <= 1, ValueError, "{}: YOLO option conf must be in [0, 1], got {}",
              mode, nms.conf_thres);
  ADEPT_CHECK(nms.iou_thres >= 0 && nms.iou_thres <= 1, ValueError, "{}: YOLO option iou must be in [0, 1], got {}",
              mode, nms.iou_thres);
  ADEPT_CHECK(nms.max_det >= 0, ValueError, "{}: YOLO option max_det must be >= 0, got {}", mode, nms.max_det);
  return nms;
}

std::string make_run_dir(const Config& config, const std::string& mode) {
  namespace fs = std::filesystem;
  const std::string name = config.str("name").empty() ? mode : config.str("name");
  fs::path dir = fs::path(config.str("project")) / name;
  if (!config.flag("exist_ok"))
    for (int k = 2; fs::exists(dir); ++k) dir = fs::path(config.str("project")) / fmt::format("{}{}", name, k);
  std::error_code ec;
  fs::create_directories(dir, ec);
  ADEPT_CHECK(!ec, IOError, "cannot create the run folder {}: {}", dir.string(), ec.message());
  return dir.string();
}

}  // namespace adept::models::yolo::detail
