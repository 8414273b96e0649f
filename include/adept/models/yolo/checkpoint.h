// YOLO11 training checkpoints: one safetensors file holding everything a run needs to continue
// exactly where it stopped (docs/architecture.md section 9), and loading a model by name or file.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adept/models/yolo/config.h"
#include "adept/models/yolo/yolo11.h"
#include "adept/nn/module.h"
#include "adept/optim/optimizer.h"

namespace adept::models::yolo {

/// The state of a training run at a batch boundary.
///
/// File layout (safetensors): tensors `model.<key>` (raw weights and buffers), `ema.<key>` (the
/// EMA weights, what validation and prediction use), `optimizer.state.<i>.<key>` and, when saved
/// in the middle of a gradient accumulation, `grad.<parameter name>`; `__metadata__` holds
/// "format" = "adept.yolo11.checkpoint/1" and the scalar fields below as text (config, names,
/// optimizer groups and scheduler state as JSON).
struct TrainCheckpoint {
  Config config;                   ///< the run's options
  std::vector<std::string> names;  ///< class names (nc = names.size())
  std::string scale = "n";
  nn::StateDict model, ema;
  int64_t ema_updates = 0;
  std::string optimizer_name;      ///< "SGD", "Adam" or "AdamW"
  optim::OptimizerStateDict optimizer;
  optim::Options scheduler;        ///< the LambdaLR's state_dict
  optim::Options grad_scaler;      ///< the GradScaler's state_dict (empty without amp)
  nn::StateDict grads;             ///< pending accumulated gradients by parameter name
  int64_t epoch = 0;               ///< the epoch to continue (0-based; == epochs when finished)
  int64_t batch = 0;               ///< the batch of `epoch` to continue at
  int64_t last_opt_step = -1;      ///< iteration of the last optimizer step
  double best_fitness = -1;        ///< best 0.1 mAP50 + 0.9 mAP50-95 so far (-1: none yet)
  int64_t best_epoch = -1;
  std::array<double, 3> loss_sum{};  ///< sum of the loss items (box, cls, dfl) over the epoch's finished batches
  int64_t nonfinite_streak = 0;    ///< consecutive skipped steps with a non-finite loss
  int64_t world_size = 1;          ///< processes of the data-parallel run (mpirun -np N) that wrote it
  uint64_t rng_seed = 0, rng_offset = 0;  ///< the default generator's state
};

/// Writes `ckpt` to `path` atomically (temporary file, fsync, rename): a crash while saving
/// leaves the previous file intact. IOError when it cannot be written.
void save_checkpoint(const TrainCheckpoint& ckpt, const std::string& path);

/// Reads a file written by save_checkpoint. IOError for a missing or unreadable file; ValueError
/// when it is not an Adept YOLO11 checkpoint (wrong "format"), naming the file.
TrainCheckpoint load_checkpoint(const std::string& path);

/// A model ready to use and where it came from.
struct LoadedModel {
  std::shared_ptr<Yolo11> model;
  std::vector<std::string> names;  ///< class names (from the checkpoint; "class<k>" for a new model)
  std::string checkpoint;          ///< the file it was loaded from ("" for a new model)
  Config train_config;             ///< the options the checkpoint was trained with (defaults for a new model)
};

/// `spec` is a scale name ("yolo11n" ... "yolo11x", or "n" ... "x"): a new randomly initialised
/// model for nc classes (nc <= 0 means 80); or a checkpoint path: its scale, classes and EMA
/// weights. ValueError for a name that is neither a scale nor an existing file.
LoadedModel load_model(const std::string& spec, int64_t nc = 0);

/// Whether `spec` names a checkpoint file rather than a scale.
bool is_checkpoint_spec(const std::string& spec);

}  // namespace adept::models::yolo
