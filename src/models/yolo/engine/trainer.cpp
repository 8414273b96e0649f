// YOLO11 training (trainer.h): the epoch and batch loops, checkpoints, resume, metrics files.
#include "adept/models/yolo/trainer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "adept/autograd.h"
#include "adept/distributed.h"
#include "adept/distributed/data_parallel.h"
#include "adept/distributed/sync_batch_norm.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/nn/utils/clip_grad.h"
#include "adept/ops.h"
#include "adept/optim/ema.h"
#include "adept/optim/grad_scaler.h"
#include "adept/optim/lr_scheduler.h"
#include "adept/vision/detection_collate.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif
#include "models/yolo/engine/csv_log.h"
#include "models/yolo/engine/plots.h"
#include "models/yolo/engine/progress.h"
#include "models/yolo/engine/setup.h"
#include "models/yolo/engine/tensorboard_log.h"
#include "models/yolo/engine/train_schedule.h"

namespace adept::models::yolo {

namespace {

namespace fs = std::filesystem;
using detail::CsvLog;

constexpr int64_t kMaxNonfiniteStreak = 10;
constexpr double kMaxGradNorm = 10.0;
constexpr int64_t kPlottedTrainBatches = 3;  // train_batch0..2.jpg, as Ultralytics

// ---- Ctrl-C and SIGTERM (kill, timeout, a batch scheduler's cancel, a closed terminal's group):
// the first one asks the loop to stop at the next batch boundary and save; the handler then
// restores the previous dispositions, so a second signal acts as it would without the trainer.
std::atomic<bool> g_interrupted{false};
constexpr int kStopSignals[] = {SIGINT, SIGTERM};
struct sigaction g_previous[2];

void restore_stop_signals() {
  for (int k = 0; k < 2; ++k) sigaction(kStopSignals[k], &g_previous[k], nullptr);
}

void on_stop_signal(int sig) {
  g_interrupted = true;
  static const char ctrl_c[] = "\nCtrl-C: saving a checkpoint at the end of this batch (again to kill)\n";
  static const char term[] = "\nSIGTERM: saving a checkpoint at the end of this batch (again to kill)\n";
  if (sig == SIGINT) (void)!write(STDERR_FILENO, ctrl_c, sizeof ctrl_c - 1);
  else (void)!write(STDERR_FILENO, term, sizeof term - 1);
  restore_stop_signals();
}

class StopSignalScope {
 public:
  StopSignalScope() {
    g_interrupted = false;
    struct sigaction sa{};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 2; ++k) sigaction(kStopSignals[k], &sa, &g_previous[k]);
  }
  ~StopSignalScope() { restore_stop_signals(); }
};

// ---- Data-parallel runs (`mpirun -np N adept train`, or the Python API under mpirun): every rank trains
// on its share of each epoch (DistributedSampler) with batch / N images, DDP's Reducer averages the
// gradients, and rank 0 alone validates, logs, plots and writes checkpoints.
// The process group: the caller's, or one started here when mpirun launched this process with N > 1.
void join_process_group() {
  if (distributed::is_initialized()) return;
  const char* n = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (n && std::atoi(n) > 1) distributed::init_process_group("mpi");
}

// The checkpoint to resume from: `resume` = true -> the newest weights/last.safetensors under project.
std::string resume_path(const Config& config) {
  const std::string r = config.str("resume");
  std::string lower = r;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "false" || lower == "0" || lower.empty()) return "";
  if (lower != "true" && lower != "1") return r;
  std::string best;
  fs::file_time_type newest{};
  std::error_code ec;
  if (fs::is_directory(config.str("project"), ec))
    for (const auto& e : fs::recursive_directory_iterator(config.str("project"), ec))
      if (e.path().filename() == "last.safetensors" && (best.empty() || e.last_write_time() > newest)) {
        best = e.path().string();
        newest = e.last_write_time();
      }
  ADEPT_CHECK(!best.empty(), ValueError, "resume=True: no weights/last.safetensors found under {}",
              config.str("project"));
  return best;
}

// The run's class weights option as a tensor (undefined when not given).
Tensor class_weights(const Config& config, int64_t nc) {
  const std::string& s = config.str("class_weights");
  if (s.empty()) return {};
  std::vector<double> w;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, comma - pos);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    ADEPT_CHECK(!item.empty() && end == item.c_str() + item.size() && std::isfinite(v) && v >= 0, ValueError,
                "YOLO option class_weights='{}': '{}' is not a non-negative number", s, item);
    w.push_back(v);
    pos = comma + 1;
  }
  ADEPT_CHECK(static_cast<int64_t>(w.size()) == nc, ValueError,
              "YOLO option class_weights has {} values but the dataset has {} classes", w.size(), nc);
  return tensor(w, kFloat32);
}

vision::AugmentOptions augment_options(const Config& c) {
  vision::AugmentOptions a;
  a.hsv_h = c.number("hsv_h");
  a.hsv_s = c.number("hsv_s");
  a.hsv_v = c.number("hsv_v");
  a.degrees = c.number("degrees");
  a.translate = c.number("translate");
  a.scale = c.number("scale");
  a.shear = c.number("shear");
  a.perspective = c.number("perspective");
  a.flipud = c.number("flipud");
  a.fliplr = c.number("fliplr");
  a.mosaic = c.number("mosaic");
  return a;
}

void write_args(const Config& config, const std::string& path) {
  std::string text;
  for (const auto& [k, v] : config.values()) text += fmt::format("{}: {}\n", k, v.empty() ? "null" : v);
  std::ofstream(path) << text;
}

class Trainer {
 public:
  Trainer(const Config& user_config, const TrainCallbacks& callbacks, LoadedModel* model)
      : callbacks_(callbacks), given_(model) {
    join_process_group();
    if (distributed::is_initialized()) {
      world_ = distributed::get_world_size();
      rank_ = distributed::get_rank();
    }
    main_ = rank_ == 0;
    const std::string resume = resume_path(user_config);
    if (!resume.empty()) {
      ckpt_ = load_checkpoint(resume);
      config_ = ckpt_->config;
      // The run continues with its own options (exactness); only where it runs may change.
      std::vector<std::string> ignored;
      for (const auto& [key, value] : user_config.values()) {
        if (!user_config.is_set(key) || key == "resume") continue;
        if (key == "device" || key == "workers") config_.set(key, value);
        else if (value != config_.str(key)) ignored.push_back(fmt::format("{}={}", key, value));
      }
      if (!ignored.empty())
        spdlog::warn("resume: ignoring {} (a resumed run keeps its checkpoint's options; only device and workers "
                     "may change)", fmt::join(ignored, " "));
      ADEPT_CHECK(ckpt_->epoch < config_.integer("epochs"), ValueError,
                  "resume: {} finished its {} epochs; nothing to resume (start a new run with model={})", resume,
                  config_.integer("epochs"), resume);
      // Another number of processes splits the epoch differently: it can only take over at an epoch's start.
      ADEPT_CHECK(ckpt_->world_size == world_ || ckpt_->batch == 0, ValueError,
                  "resume: {} was written by {} process(es) in the middle of epoch {} (batch {}); {} process(es) can "
                  "resume it only from an epoch boundary: resume with mpirun -np {}, or from a checkpoint saved at the "
                  "end of an epoch", resume, ckpt_->world_size, ckpt_->epoch + 1, ckpt_->batch, world_,
                  ckpt_->world_size);
      save_dir_ = fs::path(resume).parent_path().parent_path().string();
      spdlog::info("resuming {} at epoch {}, batch {}", resume, ckpt_->epoch + 1, ckpt_->batch);
    } else {
      config_ = user_config;
    }
    if (detail::is_builtin_data(config_.str("data"))) detail::apply_builtin_defaults(config_);
    try {
      setup();
    } catch (const OutOfMemoryError&) {
      rethrow_device_error(std::current_exception());
    }
  }

  TrainResult run();

  /// Device errors with what the run needs to continue: OutOfMemoryError with the batch and a smaller
  /// one to try, DeviceError (a lost or stuck device) naming the last checkpoint, which stays intact
  /// (checkpoints are written atomically and only between batches).
  [[noreturn]] void rethrow_device_error(std::exception_ptr e) const;

 private:
  struct StagedBatch {
    Tensor img;      // uint8 (B, 3, H, W), on the device (its upload queued)
    Tensor targets;  // (N, 6) on the host
    Tensor host_img;  // the images on the host, kept for the batches that are plotted (no device read-back)
  };
  // Reduces `flags` (this rank's 0/1 values) to their maximum over the ranks: one rank's "stop" or
  // "skip" is every rank's, so that all of them run the same collectives.
  std::vector<double> agree(std::vector<double> flags) const {
    if (world_ == 1) return flags;
    Tensor t = tensor(flags, kFloat64);
    distributed::all_reduce(t, distributed::ReduceOp::MAX);
    const double* v = t.data_ptr<double>();
    return std::vector<double>(v, v + flags.size());
  }
  StagedBatch stage(data::Batch& b, bool keep_host) const {
    return {b.at("img").to(device_), b.at("targets"), keep_host ? b.at("img") : Tensor()};
  }
  bool on_gpu() const { return device_.type == DeviceType::Vulkan; }
  // Submits the device's queued work without waiting for it.
  void flush_device() const {
#ifdef ADEPT_WITH_VULKAN
    if (on_gpu()) vulkan_flush(device_.index);
#endif
  }
  void vulkan_reset_peaks() const {
#ifdef ADEPT_WITH_VULKAN
    vulkan_reset_peak_memory_stats(device_.index);
#endif
  }
  // Peak allocated and reserved device memory in MiB since vulkan_reset_peaks() (NaN on the CPU).
  std::array<double, 2> gpu_peaks() const {
    std::array<double, 2> out{std::nan(""), std::nan("")};
#ifdef ADEPT_WITH_VULKAN
    if (on_gpu()) {
      const VulkanMemoryStats m = vulkan_memory_stats(device_.index);
      out = {static_cast<double>(m.peak) / (1 << 20), static_cast<double>(m.peak_reserved) / (1 << 20)};
    }
#endif
    return out;
  }
  void setup();
  void optimizer_step();
  void warmup(int64_t ni, int64_t epoch);
  TrainCheckpoint checkpoint(int64_t epoch, int64_t batch) const;
  std::vector<double> lrs() const {
    std::vector<double> out;
    for (const auto& g : optimizer_->param_groups()) out.push_back(optim::option_number(g.options, "lr", "train"));
    return out;
  }

  TrainCallbacks callbacks_;
  LoadedModel* given_;
  int world_ = 1, rank_ = 0;  // the data-parallel run's processes and this one's rank
  bool sync_bn_ = false;      // BatchNorm over the global batch (the buffers then agree without a broadcast)
  bool main_ = true;          // rank 0: validates, logs and saves
  int64_t local_batch_ = 0;   // images per step on this rank: batch / world
  std::unique_ptr<distributed::Reducer> reducer_;  // the caller's model, trained in place (null: load config_ "model")
  Config config_;
  std::optional<TrainCheckpoint> ckpt_;
  std::string save_dir_, last_, best_;
  vision::DatasetConfig data_;
  std::shared_ptr<Yolo11> model_, ema_model_;
  Device device_;
  std::shared_ptr<vision::DetectionDataset> train_set_, val_set_;
  std::unique_ptr<data::DataLoader> train_loader_, val_loader_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  std::string optimizer_name_;
  std::unique_ptr<optim::LambdaLR> scheduler_;
  std::function<double(int64_t)> lf_;
  std::unique_ptr<optim::ModelEMA> ema_;
  std::unique_ptr<optim::GradScaler> scaler_;  // disabled without amp
  bool amp_ = false;
  std::unique_ptr<DetectionLoss> loss_;
  NmsOptions nms_;  // validation after each epoch
  std::vector<Tensor> params_;
  int64_t epochs_ = 0, batch_size_ = 0, nb_ = 0, nw_ = -1, accumulate_ = 1, last_opt_step_ = -1;
  double nbs_ = 64, warmup_bias_lr_ = 0, best_fitness_ = -1;
  int64_t best_epoch_ = -1, nonfinite_streak_ = 0;
  int64_t at_epoch_ = -1, at_batch_ = -1;  // where the run is (error messages); -1: in setup
  std::array<double, 3> loss_sum_{};
};

void Trainer::setup() {
  // Options that need no data are checked before the dataset is generated or its labels scanned.
  epochs_ = config_.integer("epochs");
  batch_size_ = config_.integer("batch");
  ADEPT_CHECK(epochs_ >= 1, ValueError, "YOLO option epochs must be >= 1, got {}", epochs_);
  ADEPT_CHECK(batch_size_ >= 1, ValueError, "YOLO option batch must be >= 1 (no auto-batch), got {}", batch_size_);
  // batch is the global batch, as in Ultralytics: each of the N processes takes batch / N images a step.
  ADEPT_CHECK(batch_size_ % world_ == 0, ValueError,
              "YOLO option batch={} is the batch of all {} processes together and must be a multiple of their number",
              batch_size_, world_);
  local_batch_ = batch_size_ / world_;
  const int64_t imgsz = config_.integer("imgsz");
  ADEPT_CHECK(imgsz >= 32 && imgsz % 32 == 0, ValueError, "YOLO option imgsz must be a multiple of 32 (>= 32), got {}",
              imgsz);
  detail::check_optimizer_name(config_.str("optimizer"));
  const int workers = detail::loader_workers(config_.integer("workers"));
  nms_ = detail::nms_options(config_, default_conf(OptionSpec::kTrain), /*multi_label=*/true, "train");
  device_ = detail::yolo_device(config_.str("device"), "train");
#ifdef ADEPT_WITH_VULKAN
  // `device=vulkan` in a data-parallel run: each rank takes the GPU of its rank on the node, the GPUs ordered by
  // UUID (the same mapping in every process), shared round-robin when there are fewer.
  if (world_ > 1 && device_.type == DeviceType::Vulkan && config_.str("device").find(':') == std::string::npos) {
    device_ = Device(DeviceType::Vulkan, vulkan_device_for_local_rank(distributed::get_node_local_rank()));
    for (const VulkanDeviceInfo& d : vulkan_devices()) {  // every rank says which GPU it took (not only rank 0)
      if (d.index == device_.index)
        fmt::print(stderr, "rank {}: {} {} (UUID {})\n", rank_, device_.str(), d.name, d.uuid);
    }
  }
#endif
  data_ = detail::resolve_data(config_.str("data"));
  const int64_t nc = static_cast<int64_t>(data_.names.size());

  // Model: seeded initialisation, or a checkpoint's weights where the shapes match.
  manual_seed(static_cast<uint64_t>(config_.integer("seed")));
  LoadedModel loaded = given_ && !ckpt_ ? *given_ : load_model(config_.str("model"), nc);
  model_ = loaded.model;
  if (model_->nc != nc) {
    auto fresh = std::make_shared<Yolo11>(model_->scale, nc);
    nn::StateDict keep;
    const nn::StateDict old = model_->state_dict();
    int64_t n = 0;
    for (const auto& [k, t] : fresh->state_dict()) {
      auto it = std::find_if(old.begin(), old.end(), [&](const auto& e) { return e.first == k; });
      if (it != old.end() && it->second.sizes() == t.sizes()) keep.emplace_back(k, it->second), ++n;
    }
    fresh->load_state_dict(keep, false);
    spdlog::info("model: transferred {}/{} tensors of {} ({} classes) to a {}-class model", n,
                 fresh->state_dict().size(), loaded.checkpoint, model_->nc, nc);
    model_ = fresh;
    if (given_ && !ckpt_) given_->model = fresh;
  }
  if (given_ && !ckpt_) given_->names = data_.names;
  // sync_bn: BatchNorm over the global batch, so that N processes of batch / N equal one of batch.
  sync_bn_ = world_ > 1 && config_.flag("sync_bn");
  if (sync_bn_) distributed::convert_sync_batchnorm(model_);
  model_->to(device_);
  if (world_ > 1) {
    // The Reducer (which checks that every rank has the same parameters) averages each backward's gradients;
    // every rank starts from rank 0's weights and statistics.
    reducer_ = std::make_unique<distributed::Reducer>(model_->named_parameters());
    distributed::broadcast_module_state(*model_, 0);
  }
  ema_model_ = std::make_shared<Yolo11>(model_->scale, nc);
  ema_model_->to(device_);
  for (const Tensor& p : model_->parameters())
    if (p.requires_grad()) params_.push_back(p);

  // Data.
  vision::DetectionDatasetOptions train_opt;
  train_opt.imgsz = static_cast<int>(imgsz);
  train_opt.augment = true;
  train_opt.hyp = augment_options(config_);
  train_opt.fraction = config_.number("fraction");
  ADEPT_CHECK(train_opt.fraction > 0 && train_opt.fraction <= 1, ValueError,
              "YOLO option fraction must be in (0, 1], got {}", train_opt.fraction);
  train_set_ = std::make_shared<vision::DetectionDataset>(data_, "train", train_opt);
  vision::DetectionDatasetOptions val_opt;
  val_opt.imgsz = static_cast<int>(imgsz);
  val_set_ = std::make_shared<vision::DetectionDataset>(data_, "val", val_opt);
  const auto seed = static_cast<uint64_t>(config_.integer("seed"));
  train_loader_ = detail::make_loader(train_set_, local_batch_, workers, true, seed, world_, rank_);
  val_loader_ = detail::make_loader(val_set_, local_batch_ * 2, workers, false, seed);
  nb_ = train_loader_->size();
  ADEPT_CHECK(nb_ > 0, ValueError, "train: the train split of {} has no images", data_.source);

  // Optimizer, schedule, EMA, loss (sheet 5.2-5.4).
  nbs_ = static_cast<double>(config_.integer("nbs"));
  ADEPT_CHECK(nbs_ >= 1, ValueError, "YOLO option nbs must be >= 1, got {}", nbs_);
  accumulate_ = std::max<int64_t>(detail::round_half_even(nbs_ / static_cast<double>(batch_size_)), 1);
  const double weight_decay =
      config_.number("weight_decay") * static_cast<double>(batch_size_ * accumulate_) / nbs_;
  const int64_t iterations =
      static_cast<int64_t>(std::ceil(static_cast<double>(train_set_->size()) /
                                     std::max(static_cast<double>(batch_size_), nbs_))) * epochs_;
  detail::BuiltOptimizer built = detail::build_optimizer(*model_, config_, nc, iterations, weight_decay);
  optimizer_ = std::move(built.optimizer);
  optimizer_name_ = built.name;
  warmup_bias_lr_ = built.warmup_bias_lr;
  lf_ = detail::lr_factor(config_);
  scheduler_ = std::make_unique<optim::LambdaLR>(*optimizer_, lf_);
  ema_ = std::make_unique<optim::ModelEMA>(*model_);
  // amp (Ultralytics' default) on the GPU: the forward under float16 autocast, the loss in float32,
  // float32 master weights, dynamic loss scaling. On the CPU training stays float32, as Ultralytics.
  amp_ = config_.flag("amp") && on_gpu();
  optim::GradScalerOptions so;
  so.enabled = amp_;
  scaler_ = std::make_unique<optim::GradScaler>(so);
  loss_ = std::make_unique<DetectionLoss>(*model_);
  loss_->box_gain = config_.number("box");
  loss_->cls_gain = config_.number("cls");
  loss_->dfl_gain = config_.number("dfl");
  loss_->class_weights = class_weights(config_, nc);
  loss_->distributed = world_ > 1;
  if (loss_->class_weights.defined()) loss_->class_weights = loss_->class_weights.to(device_);
  const double warmup_epochs = config_.number("warmup_epochs");
  nw_ = warmup_epochs > 0
            ? std::max(detail::round_half_even(warmup_epochs * static_cast<double>(nb_)), config_.integer("warmup_min_iters"))
            : -1;

  if (ckpt_) {
    ADEPT_CHECK(ckpt_->optimizer_name == optimizer_name_, ValueError,
                "resume: the checkpoint's optimizer is {} but the options now choose {}", ckpt_->optimizer_name,
                optimizer_name_);
    model_->load_state_dict(ckpt_->model);
    ema_->load_state_dict(ckpt_->ema, ckpt_->ema_updates);
    optimizer_->load_state_dict(ckpt_->optimizer);
    scheduler_->load_state_dict(ckpt_->scheduler);
    if (amp_ && !ckpt_->grad_scaler.empty()) scaler_->load_state_dict(ckpt_->grad_scaler);
    // Pending gradients were saved multiplied by the run's loss scale; bring them to this run's.
    const double saved_scale =
        ckpt_->grad_scaler.empty() ? 1.0 : optim::option_number(ckpt_->grad_scaler, "scale", "resume");
    const double rescale = scaler_->get_scale() / saved_scale;
    const auto named = model_->named_parameters();
    for (const auto& [name, g] : ckpt_->grads) {
      auto it = std::find_if(named.begin(), named.end(), [&](const auto& e) { return e.first == name; });
      ADEPT_CHECK(it != named.end(), ValueError, "resume: the checkpoint has a gradient of unknown parameter '{}'", name);
      Tensor p = it->second;
      p.set_grad(rescale == 1.0 ? g.to(device_) : (g * rescale).to(device_));
    }
    last_opt_step_ = ckpt_->last_opt_step;
    best_fitness_ = ckpt_->best_fitness;
    best_epoch_ = ckpt_->best_epoch;
    nonfinite_streak_ = ckpt_->nonfinite_streak;
    loss_sum_ = ckpt_->loss_sum;
    default_generator().set_state({ckpt_->rng_seed, ckpt_->rng_offset});
  } else if (main_) {
    save_dir_ = detail::make_run_dir(config_, "train");
  }
  if (main_) {
    fs::create_directories(fs::path(save_dir_) / "weights");
    last_ = (fs::path(save_dir_) / "weights" / "last.safetensors").string();
    best_ = (fs::path(save_dir_) / "weights" / "best.safetensors").string();
    write_args(config_, (fs::path(save_dir_) / "args.yaml").string());
  }
  const char* precision = amp_ ? ", amp (float16 autocast, loss scaling)"
                          : config_.flag("amp") ? " (float32: amp needs the GPU)" : "";
  if (!main_) return;
  const std::string processes =
      world_ > 1 ? fmt::format(" over {} processes ({} images each a step)", world_, local_batch_) : "";
  spdlog::info("train: YOLO11{} ({} classes) on {}: {} train / {} val images at imgsz {}, batch {}{} (accumulate {}), "
               "{} epochs, {} data workers, device {}{}; results in {}",
               model_->scale, nc, data_.source, train_set_->size(), val_set_->size(), imgsz, batch_size_, processes,
               accumulate_, epochs_, workers, config_.str("device"), precision, save_dir_);
}

void Trainer::warmup(int64_t ni, int64_t epoch) {
  if (ni > nw_) return;
  const double x = static_cast<double>(ni), x1 = static_cast<double>(nw_);
  accumulate_ = std::max<int64_t>(1, detail::round_half_even(detail::interp(x, 0, x1, 1, nbs_ / static_cast<double>(batch_size_))));
  auto& groups = optimizer_->param_groups();
  for (size_t j = 0; j < groups.size(); ++j) {
    auto& o = groups[j].options;
    const double target = optim::option_number(o, "initial_lr", "train") * lf_(epoch);
    o["lr"] = detail::interp(x, 0, x1, j == 0 ? warmup_bias_lr_ : 0.0, target);
    if (o.count("momentum"))
      o["momentum"] = detail::interp(x, 0, x1, config_.number("warmup_momentum"), config_.number("momentum"));
  }
}

void Trainer::optimizer_step() {
  const bool any_grad = std::any_of(params_.begin(), params_.end(), [](const Tensor& p) { return p.grad().defined(); });
  if (amp_ && !any_grad) {
    optimizer_->step();  // every batch since the last step was skipped (non-finite loss): nothing to unscale
  } else {
    scaler_->unscale_(*optimizer_);  // no-op without amp
    nn::utils::clip_grad_norm_(params_, kMaxGradNorm);
    const bool stepped = scaler_->step(*optimizer_);  // skipped when amp found an inf / NaN gradient
    if (!stepped) spdlog::debug("amp: inf / NaN gradients at loss scale {}; step skipped", scaler_->get_scale());
    scaler_->update();
  }
  optimizer_->zero_grad();
  ema_->update(*model_);
}

void Trainer::rethrow_device_error(std::exception_ptr e) const {
  const std::string where = at_epoch_ < 0 ? std::string("while setting up the run")
                            : at_batch_ < 0 ? fmt::format("after epoch {} (validation or checkpoint)", at_epoch_ + 1)
                                            : fmt::format("at epoch {} batch {}", at_epoch_ + 1, at_batch_ + 1);
  std::error_code ec;
  const std::string ckpt = !last_.empty() && fs::exists(last_, ec)
                               ? fmt::format("the last checkpoint {} is intact; continue with `adept train resume={}`",
                                             last_, last_)
                               : std::string("no checkpoint was written yet");
  const std::string device = config_.str("device");
  try {
    std::rethrow_exception(e);
  } catch (const OutOfMemoryError& oom) {
    const int64_t smaller = std::max<int64_t>(batch_size_ / 2, 1);
    throw OutOfMemoryError(fmt::format(
        "train: out of device memory on {} {} with batch={} imgsz={}: {}; try a smaller batch (e.g. batch={}{}); {}",
        device, where, batch_size_, config_.str("imgsz"), oom.what(), smaller,
        batch_size_ > 1 ? "" : " or a smaller imgsz", ckpt));
  } catch (const DeviceError& d) {
    throw DeviceError(fmt::format("train: the device {} failed {}: {}; the run stopped, {}", device, where, d.what(),
                                  ckpt));
  }
}

TrainCheckpoint Trainer::checkpoint(int64_t epoch, int64_t batch) const {
  TrainCheckpoint c;
  c.config = config_;
  c.names = data_.names;
  c.scale = model_->scale;
  c.model = model_->state_dict();
  c.ema = ema_->state_dict();
  c.ema_updates = ema_->updates();
  c.optimizer_name = optimizer_name_;
  c.optimizer = optimizer_->state_dict();
  c.scheduler = scheduler_->state_dict();
  c.grad_scaler = scaler_->state_dict();
  for (const auto& [name, p] : model_->named_parameters())
    if (p.grad().defined()) c.grads.emplace_back(name, p.grad());
  c.epoch = epoch;
  c.batch = batch;
  c.last_opt_step = last_opt_step_;
  c.best_fitness = best_fitness_;
  c.best_epoch = best_epoch_;
  c.loss_sum = loss_sum_;
  c.nonfinite_streak = nonfinite_streak_;
  c.world_size = world_;
  const Generator::State s = default_generator().get_state();
  c.rng_seed = s.seed;
  c.rng_offset = s.offset;
  return c;
}

TrainResult Trainer::run() {
  StopSignalScope stop_signals;
  TrainResult result;
  result.save_dir = main_ ? save_dir_ : std::string();  // rank 0 owns the run folder
  result.last = last_;
  int64_t start_epoch = 0, start_batch = 0;
  if (ckpt_) {
    start_epoch = ckpt_->epoch;
    start_batch = ckpt_->batch;
  }
  // A resumed run drops the rows written after its checkpoint (epochs and batches are 1-based).
  const std::string results_csv = (fs::path(save_dir_) / "results.csv").string();
  const std::string batches_csv = (fs::path(save_dir_) / "batches.csv").string();
  if (main_) {
    CsvLog::keep_rows(results_csv, [&](double e, double) { return e - 1 < static_cast<double>(start_epoch); });
    CsvLog::keep_rows(batches_csv, [&](double e, double b) {
      return e - 1 < static_cast<double>(start_epoch) ||
             (e - 1 == static_cast<double>(start_epoch) && b - 1 < static_cast<double>(start_batch));
    });
  }
  std::vector<std::string> result_columns = {
      "epoch",        "train/box_loss", "train/cls_loss", "train/dfl_loss", "metrics/precision(B)",
      "metrics/recall(B)", "metrics/mAP50(B)", "metrics/mAP50-95(B)", "val/box_loss", "val/cls_loss",
      "val/dfl_loss", "lr/pg0",         "lr/pg1",         "lr/pg2",         "seconds"};
  // GPU runs add the epoch's peak device memory; a resumed run keeps the columns its file has.
  const std::string kGpuColumns = "gpu/peak_allocated_MiB,gpu/peak_reserved_MiB";
  std::string header;
  if (std::ifstream in(results_csv); main_ && in) std::getline(in, header);
  const bool gpu_columns = header.empty() ? on_gpu() : header.find(kGpuColumns) != std::string::npos;
  if (gpu_columns) {
    result_columns.push_back("gpu/peak_allocated_MiB");
    result_columns.push_back("gpu/peak_reserved_MiB");
  }
  std::optional<CsvLog> results, batches;  // rank 0's files
  if (main_) {
    results.emplace(results_csv, result_columns);
    batches.emplace(batches_csv, std::vector<std::string>{"epoch", "batch", "iteration", "box_loss", "cls_loss",
                                                          "dfl_loss", "instances", "lr/pg0", "lr/pg1", "lr/pg2",
                                                          "images_per_s"});
  }
  std::optional<detail::TensorBoardLog> tb;  // tensorboard=True: the same values in an event file
  if (main_ && config_.flag("tensorboard")) tb.emplace(save_dir_);
  const int64_t close_at = epochs_ - config_.integer("close_mosaic");
  const int64_t patience = config_.integer("patience");
  const bool plots = main_ && config_.flag("plots");
  const fs::path dir(save_dir_);
  if (plots && !ckpt_)
    detail::try_plot("labels.jpg", [&] { detail::plot_labels(train_set_->labels(), data_.names, (dir / "labels.jpg").string()); });
  // Validation of the EMA weights; the plots of the last one go to the run folder.
  auto validate_ema = [&](bool with_plots) {
    ema_->copy_to(*ema_model_);
    // Rank 0 validates alone: the validation loss is normalised by its own batches.
    struct Local {
      DetectionLoss& l;
      bool prev = l.distributed;
      explicit Local(DetectionLoss& loss) : l(loss) { l.distributed = false; }
      ~Local() { l.distributed = prev; }
    } local(*loss_);
    detail::Progress vbar("  val", val_loader_->size());
    const ValidationPlots where{save_dir_, data_.names};
    ValidationResult v = validate(*ema_model_, *val_loader_, nms_, loss_.get(),
                                  [&](int64_t d, int64_t) { vbar.update(d, ""); }, with_plots ? &where : nullptr);
    vbar.finish(fmt::format("P {:.3f} R {:.3f} mAP50 {:.3f} mAP50-95 {:.3f}", v.metrics.mp, v.metrics.mr,
                            v.metrics.map50, v.metrics.map50_95));
    return v;
  };

  for (int64_t epoch = start_epoch; epoch < epochs_; ++epoch) {
    const auto epoch_t0 = std::chrono::steady_clock::now();
    if (epoch >= close_at && train_set_->mosaic()) {
      spdlog::info("closing mosaic for the last {} epochs", epochs_ - epoch);
      train_set_->close_mosaic();
      train_loader_->reset();  // persistent workers hold the old dataset state
    }
    model_->train();
    train_loader_->set_epoch(epoch);
    const int64_t first = epoch == start_epoch ? start_batch : 0;
    if (first == 0) loss_sum_ = {};
    train_loader_->set_start_batch(first);
    detail::Progress bar(fmt::format("epoch {}/{}", epoch + 1, epochs_), nb_, first, /*quiet=*/!main_);
    if (on_gpu()) vulkan_reset_peaks();
    int64_t i = first;
    auto t_batch = std::chrono::steady_clock::now();
    // Batch i+1 is loaded and its upload queued while the device runs the forward of batch i; the
    // host then waits once per step, for the loss (its finiteness decides whether the batch is
    // skipped) and the items the progress bar and batches.csv show. Images travel as uint8 and are
    // converted on the device; the targets stay on the host, where the loss pads them.
    data::DataLoader::Iterator it = train_loader_->begin();
    const data::DataLoader::Iterator end = train_loader_->end();
    std::optional<StagedBatch> next;
    // The first kPlottedTrainBatches batches of a run keep their host images for train_batchN.jpg, and
    // TensorBoard's batch image (the epoch's first batch, at the start and when the mosaic closes) its own.
    const bool tb_image_epoch = tb && (epoch == start_epoch || epoch == close_at);
    auto keep_host = [&](int64_t batch) {
      return (plots && batch + nb_ * epoch < kPlottedTrainBatches) || (tb_image_epoch && batch == first);
    };
    if (it != end) next = stage(*it, keep_host(first));
    at_epoch_ = epoch;
    while (next) {
      at_batch_ = i;
      const StagedBatch cur = std::move(*next);
      next.reset();
      const int64_t ni = i + nb_ * epoch;
      warmup(ni, epoch);
      const Tensor img = vision::to_float_image(cur.img);
      const Tensor& targets = cur.targets;
      if (cur.host_img.defined() && ni < kPlottedTrainBatches && plots) {
        const std::string name = fmt::format("train_batch{}.jpg", ni);
        detail::try_plot(name, [&] {
          const Tensor labels = cat({targets.to(kFloat32), full({targets.size(0), 1}, -1.0, kFloat32)}, 1);
          detail::plot_batch(cur.host_img, labels, data_.names, (dir / name).string());
        });
      }
      // DDP's broadcast_buffers: every rank normalises with rank 0's running statistics. With sync_bn every rank
      // computes the same statistics from the global batch, so there is nothing to send.
      if (world_ > 1 && !sync_bn_) distributed::broadcast_coalesced(model_->buffers(), 0);
      std::vector<Tensor> maps;
      {
        std::optional<AutocastGuard> autocast;
        if (amp_) autocast.emplace(device_.type, kFloat16);
        maps = model_->forward_maps(img);
      }
      auto [loss, items] = (*loss_)(maps, targets);  // float32 (the loss casts float16 maps)
      // Reading back one (4,) tensor submits the forward; the next batch is prepared before the wait.
      const Tensor values = cat({loss.detach().reshape({1}).to(items.dtype()), items.reshape({-1})});
      flush_device();
      if (++it != end) next = stage(*it, keep_host(i + 1));
      const Tensor host = values.to(kCPU).to(kFloat64).contiguous();
      const double* hv = host.data_ptr<double>();
      const std::array<double, 3> li = {hv[1], hv[2], hv[3]};
      // Skipping a batch is decided by all ranks together (each would otherwise wait in the other's
      // all-reduces), and so is stopping, at the end of the batch.
      if (agree({std::isfinite(hv[0]) ? 0.0 : 1.0})[0] != 0) {
        ++nonfinite_streak_;
        spdlog::warn("epoch {} batch {}: the loss is not finite (box {}, cls {}, dfl {}); skipping this batch", epoch + 1,
                     i + 1, li[0], li[1], li[2]);
        ADEPT_CHECK(nonfinite_streak_ < kMaxNonfiniteStreak, Error,
                    "train: {} batches in a row had a non-finite loss; the run diverged (lower lr0, check the labels "
                    "of {}); {}",
                    nonfinite_streak_, data_.source,
                    fs::exists(last_) ? "the last checkpoint is " + last_ : std::string("no checkpoint was written"));
      } else {
        nonfinite_streak_ = 0;
        if (reducer_) reducer_->prepare_for_backward({loss});
        scaler_->scale(loss).backward();
        for (int k = 0; k < 3; ++k) loss_sum_[k] += li[k];
      }
      if (ni - last_opt_step_ >= accumulate_) {
        optimizer_step();
        last_opt_step_ = ni;
      }
      flush_device();  // the device runs backward and the step while the host logs and prepares the next forward
      if (callbacks_.on_batch_end) callbacks_.on_batch_end(epoch, i, li);
      const auto now = std::chrono::steady_clock::now();
      const double ips = static_cast<double>(img.size(0)) / std::chrono::duration<double>(now - t_batch).count();
      t_batch = now;
      const std::vector<double> lr = lrs();
      if (batches) batches->append({static_cast<double>(epoch + 1), static_cast<double>(i + 1), static_cast<double>(ni), li[0], li[1],
                      li[2], static_cast<double>(targets.size(0)), lr[0], lr[1], lr[2], ips});
      if (tb) tb->batch(ni, li);
      if (tb_image_epoch && i == first)
        tb->batch_image("train_batch", epoch + 1, cur.host_img, targets, data_.names);
      ++i;
      const double n = static_cast<double>(i);
      bar.update(i, fmt::format("box {:.4f} cls {:.4f} dfl {:.4f} inst {} | {:.1f} img/s", loss_sum_[0] / n,
                                loss_sum_[1] / n, loss_sum_[2] / n, targets.size(0), ips));
      const bool stop =
          agree({g_interrupted || (callbacks_.stop_requested && callbacks_.stop_requested()) ? 1.0 : 0.0})[0] != 0;
      if (stop) {
        bar.finish("interrupted");
        if (main_) save_checkpoint(checkpoint(epoch, i), last_);
        if (main_) spdlog::warn("training interrupted at epoch {} batch {}: saved {}; continue with `adept train resume={}`",
                     epoch + 1, i, last_, last_);
        result.interrupted = true;
        result.epochs = epoch;
        return result;
      }
    }
    at_batch_ = -1;
    const double n = static_cast<double>(std::max<int64_t>(i, 1));
    if (world_ > 1) {  // the epoch's mean losses over all ranks (each rank's items are comparable: loss.h)
      Tensor sums = tensor(std::vector<double>(loss_sum_.begin(), loss_sum_.end()), kFloat64);
      distributed::all_reduce(sums, distributed::ReduceOp::AVG);
      for (int k = 0; k < 3; ++k) loss_sum_[k] = sums.data_ptr<double>()[k];
    }
    bar.finish(fmt::format("box {:.4f} cls {:.4f} dfl {:.4f}", loss_sum_[0] / n, loss_sum_[1] / n, loss_sum_[2] / n));
    const std::vector<double> lr = lrs();

    // Validation of the EMA weights.
    const bool final_epoch = epoch + 1 == epochs_;
    std::optional<ValidationResult> v;
    if (main_ && (config_.flag("val") || final_epoch)) v = validate_ema(plots && final_epoch);
    const bool improved = v && v->metrics.fitness() > best_fitness_;
    if (improved) {
      best_fitness_ = v->metrics.fitness();
      best_epoch_ = epoch;
      result.best_val = v;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_t0).count();
    const double nan = std::nan("");
    std::vector<double> row = {static_cast<double>(epoch + 1), loss_sum_[0] / n, loss_sum_[1] / n, loss_sum_[2] / n,
                               v ? v->metrics.mp : nan, v ? v->metrics.mr : nan, v ? v->metrics.map50 : nan,
                               v ? v->metrics.map50_95 : nan, v ? v->loss[0] : nan, v ? v->loss[1] : nan,
                               v ? v->loss[2] : nan, lr[0], lr[1], lr[2], seconds};
    const std::array<double, 2> peaks = gpu_peaks();  // training and validation of this epoch
    if (on_gpu())
      spdlog::info("epoch {}: peak device memory {:.1f} MiB allocated, {:.1f} MiB reserved ({})", epoch + 1, peaks[0],
                   peaks[1], config_.str("device"));
    if (gpu_columns) row.insert(row.end(), peaks.begin(), peaks.end());
    if (results) results->append(row);
    if (plots) detail::try_plot("results.png", [&] { detail::plot_results(results_csv, (dir / "results.png").string()); });
    if (tb) tb->epoch(result_columns, row);
    scheduler_->step();
    if (main_) {
      const TrainCheckpoint c = checkpoint(epoch + 1, 0);
      save_checkpoint(c, last_);
      if (improved) save_checkpoint(c, best_);
      const int64_t period = config_.integer("save_period");
      if (period > 0 && (epoch + 1) % period == 0)
        save_checkpoint(c, (fs::path(save_dir_) / "weights" / fmt::format("epoch{}.safetensors", epoch + 1)).string());
    }
    result.epochs = epoch + 1;
    // Rank 0 alone knows the fitness (it validated): every rank follows its early stop.
    const std::vector<double> ends =
        agree({main_ && patience > 0 && best_epoch_ >= 0 && epoch - best_epoch_ >= patience && !final_epoch ? 1.0 : 0.0,
               g_interrupted || (callbacks_.stop_requested && callbacks_.stop_requested()) ? 1.0 : 0.0});
    if (ends[0] != 0) {
      spdlog::info("early stop: no better fitness in the last {} epochs (best: epoch {})", patience, best_epoch_ + 1);
      result.early_stopped = true;
      if (plots) validate_ema(true);  // the curves and matrices of the weights the run ends with
      break;
    }
    if (ends[1] != 0) {
      if (main_) spdlog::warn("training interrupted after epoch {}: saved {}", epoch + 1, last_);
      result.interrupted = true;
      return result;
    }
  }
  if (best_epoch_ >= 0) result.best = best_;
  if (result.best_val)
    spdlog::info("best epoch {}: mAP50 {:.4f} mAP50-95 {:.4f} (COCO-style AP, pycocotools' 101-point interpolation); "
                 "weights: {}\n{}",
                 best_epoch_ + 1, result.best_val->metrics.map50, result.best_val->metrics.map50_95, best_,
                 config_.flag("verbose") ? result.best_val->metrics.table(data_.names) : std::string());
  return result;
}

}  // namespace

TrainResult train(const Config& config, const TrainCallbacks& callbacks, LoadedModel* model) {
  // Ranks other than 0 of a data-parallel run log only warnings and errors.
  join_process_group();
  struct LevelScope {
    spdlog::level::level_enum prev = spdlog::get_level();
    LevelScope() {
      if (distributed::is_initialized() && distributed::get_rank() != 0) spdlog::set_level(spdlog::level::warn);
    }
    ~LevelScope() { spdlog::set_level(prev); }
  } level;
  Trainer trainer(config, callbacks, model);
  try {
    return trainer.run();
  } catch (const OutOfMemoryError&) {
    trainer.rethrow_device_error(std::current_exception());
  } catch (const DeviceError&) {
    trainer.rethrow_device_error(std::current_exception());
  }
}

}  // namespace adept::models::yolo
