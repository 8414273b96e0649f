// YOLO11 training (`adept train`, adept.models.YOLO.train): Ultralytics' recipe from
// ../shared/docs/yolo11.md section 5 with exact resume from checkpoints.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/validator.h"

namespace adept::models::yolo {

/// Optional hooks into a training run (tests, the Python API).
struct TrainCallbacks {
  /// After every batch: 0-based epoch and batch, and the batch's loss items (box, cls, dfl).
  std::function<void(int64_t epoch, int64_t batch, const std::array<double, 3>& items)> on_batch_end;
  /// Polled after every batch and after every epoch's checkpoint; true stops the run as Ctrl-C
  /// does (checkpoint saved at that point).
  std::function<bool()> stop_requested;
};

/// What a run did.
struct TrainResult {
  std::string save_dir;  ///< the run folder (weights/, results.csv, batches.csv, args.yaml)
  std::string last;      ///< weights/last.safetensors
  std::string best;      ///< weights/best.safetensors ("" when no epoch was validated)
  int64_t epochs = 0;    ///< epochs finished (counting those of a resumed run before it)
  bool interrupted = false;   ///< stopped by Ctrl-C, SIGTERM or stop_requested (last holds the state at that batch)
  bool early_stopped = false; ///< stopped by `patience`
  std::optional<ValidationResult> best_val;  ///< validation of the best epoch (of this call)
};

/// Trains YOLO11 as Ultralytics' DetectionTrainer does (sheet section 5):
///  * data: `data` (YAML or folder; empty or "shapes": the built-in synthetic dataset, whose own
///    defaults fill the options not given); model: `model` (a scale for a new model, seeded by
///    `seed`, or a checkpoint to start from: its weights, transferred where shapes match);
///  * optimizer `auto` (AdamW with lr round(0.002 * 5 / (4 + nc), 6) for at most 10,000
///    iterations, else SGD lr 0.01 momentum 0.9 nesterov; warmup_bias_lr 0), SGD, Adam or AdamW;
///    parameter groups: biases (no decay), weights (decay weight_decay * batch * accumulate / nbs,
///    L2 for SGD, decoupled for AdamW), BatchNorm weights (no decay);
///  * accumulate = max(round(nbs / batch), 1) batches per optimizer step; gradients clipped to a
///    total L2 norm of 10; LambdaLR with the linear (or cos_lr) factor from 1 to lrf per epoch;
///    warmup over max(round(warmup_epochs * batches per epoch), warmup_min_iters = 100) iterations (none when
///    warmup_epochs is 0) ramping the bias lr from warmup_bias_lr, other lrs from 0, SGD momentum
///    from warmup_momentum and the accumulation from 1;
///  * EMA of the weights (decay 0.9999, tau 2000) updated after every optimizer step, used for
///    validation and saved in checkpoints; mosaic turned off for the last close_mosaic epochs;
///  * a batch whose loss is not finite is skipped with a warning; 10 in a row raise an Error;
///  * after every epoch: validation (when `val`, and always after the last epoch), a row of
///    results.csv, weights/last.safetensors and, when the fitness 0.1 mAP50 + 0.9 mAP50-95
///    improved, weights/best.safetensors (atomic writes); early stop after `patience` epochs
///    without improvement; every batch appends a row to batches.csv;
///  * Ctrl-C (SIGINT) or SIGTERM during the run saves last at the current batch and returns with
///    `interrupted`; a second signal kills the process;
///  * `resume` (true: the newest weights/last.safetensors under `project`; or a path) continues a
///    run from its checkpoint with its options (only `device` and `workers` may be changed):
///    the same losses as an uninterrupted run (same machine and thread count).
///  * data-parallel (`mpirun -np N adept train ...`, or this function in N processes under mpirun):
///    the process group of adept/distributed.h is joined (started when mpirun gave N > 1 processes);
///    `batch` is the global batch (Ultralytics'), batch / N images per rank a step from a
///    DistributedSampler; rank 0's weights and buffers are broadcast, gradients averaged by DDP's
///    Reducer, the loss normaliser summed over ranks (DetectionLoss::distributed), skipping a batch,
///    stopping and early stopping agreed by all ranks; rank 0 alone validates, logs and saves; a
///    checkpoint records N, and another N resumes it only at an epoch boundary (ValueError otherwise);
///    `sync_bn` makes BatchNorm use the global batch's statistics (SyncBatchNorm): then N processes of
///    batch / N images train as one process of batch (up to float rounding);
///    `device=vulkan` gives each rank the GPU of its node-local rank;
/// With `model` (not resuming), that model is trained in place instead of loading `model=`: when
/// its nc differs from the dataset's, a new model of its scale receives its weights where shapes
/// match and model->model is replaced by it.
/// Float32 throughout (`amp` is accepted and has no effect). Errors: ValueError for bad options
/// or a finished run to resume; IOError for unreadable data or unwritable run folders; Error for
/// a diverged run.
TrainResult train(const Config& config, const TrainCallbacks& callbacks = {}, LoadedModel* model = nullptr);

}  // namespace adept::models::yolo
