// Batch normalization layers (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d).
#pragma once
#include <optional>
#include <string>

#include "adept/nn/module.h"

namespace adept::nn {

/// Shared implementation of BatchNorm1d/2d (torch's _BatchNorm). Parameters weight (ones) and bias
/// (zeros) of num_features elements when affine; buffers running_mean (zeros), running_var (ones)
/// and num_batches_tracked (0-d int64) when track_running_stats. forward: in training mode (or
/// without running stats) normalises with the batch statistics; in training with running stats,
/// increments num_batches_tracked and updates the running stats with `momentum` (nullopt: the
/// cumulative average 1 / num_batches_tracked). In eval mode uses the running stats.
/// functional::batch_norm documents shapes and errors.
class BatchNorm : public Module {
 public:
  BatchNorm(std::string type_name, int64_t num_features, double eps, std::optional<double> momentum, bool affine,
            bool track_running_stats);
  Tensor forward(const Tensor& input) override;
  /// silu(forward(input)) through batch_norm_silu: in training one fused node (see ops/normalization.h); the
  /// running statistics and num_batches_tracked are updated as forward() updates them.
  Tensor forward_silu(const Tensor& input);
  std::string extra_repr() const override;
  /// Running stats back to zeros/ones, num_batches_tracked to 0.
  void reset_running_stats();
  /// reset_running_stats and weight to ones, bias to zeros.
  void reset_parameters();

  int64_t num_features;
  double eps;
  std::optional<double> momentum;
  bool affine, track_running_stats;

 protected:
  /// ValueError (as torch) when the input's rank does not fit the layer.
  virtual void check_input_dim(const Tensor& input) const = 0;
  /// forward (silu false) and forward_silu: batch statistics in training, running ones in eval
  /// (SyncBatchNorm takes its training statistics over all ranks).
  virtual Tensor forward_impl(const Tensor& input, bool silu);
};

/// Input (N, C) or (N, C, L); ValueError for other ranks.
class BatchNorm1d : public BatchNorm {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNorm("BatchNorm1d", num_features, eps, momentum, affine, track_running_stats) {}

 protected:
  void check_input_dim(const Tensor& input) const override;
};

/// Input (N, C, H, W); ValueError for other ranks.
class BatchNorm2d : public BatchNorm {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true)
      : BatchNorm("BatchNorm2d", num_features, eps, momentum, affine, track_running_stats) {}

 protected:
  void check_input_dim(const Tensor& input) const override;
};

}  // namespace adept::nn
