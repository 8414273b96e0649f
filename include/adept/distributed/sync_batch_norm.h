// SyncBatchNorm (torch.nn.SyncBatchNorm): batch normalisation whose training statistics are those of the
// whole global batch, over every rank of adept::distributed's default process group.
#pragma once
#include <memory>
#include <optional>

#include "adept/nn/modules/batchnorm.h"

namespace adept::distributed {

/// Batch normalisation over (N, C, *) inputs (any rank >= 2) whose training statistics are the mean and
/// biased variance of channel C over the images of every rank: each rank's count, mean and sum of squared
/// deviations are gathered (all_gather) and merged (Chan et al.'s parallel variance, in float64); the
/// backward sums the per-channel gradient terms over the ranks (all_reduce), so N ranks of B/N images give
/// the gradients of one process normalising B images. Running statistics use the unbiased global variance.
/// In eval mode, or without a process group of more than one rank, it is BatchNorm. Every rank must call
/// it the same number of times. Errors: ValueError for an input of rank < 2 or with one value per channel
/// in training (over all ranks); DtypeError for integer inputs.
class SyncBatchNorm : public nn::BatchNorm {
 public:
  explicit SyncBatchNorm(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                         bool affine = true, bool track_running_stats = true);

 protected:
  void check_input_dim(const Tensor& input) const override;
  Tensor forward_impl(const Tensor& input, bool silu) override;
};

/// Replaces every BatchNorm1d / BatchNorm2d under `module` (and `module` itself) by a SyncBatchNorm that
/// shares its parameters and buffers and keeps its options and training flag (torch's
/// SyncBatchNorm.convert_sync_batchnorm). Returns the converted module.
std::shared_ptr<nn::Module> convert_sync_batchnorm(std::shared_ptr<nn::Module> module);

}  // namespace adept::distributed
