// BatchNorm1d / BatchNorm2d layers.
#include "adept/nn/modules/batchnorm.h"

#include "adept/autograd.h"
#include "adept/nn/functional/normalization.h"
#include "adept/ops/creation.h"
#include "repr_util.h"

namespace adept::nn {

BatchNorm::BatchNorm(std::string type_name, int64_t num_features, double eps, std::optional<double> momentum,
                     bool affine, bool track_running_stats)
    : Module(std::move(type_name)), num_features(num_features), eps(eps), momentum(momentum), affine(affine),
      track_running_stats(track_running_stats) {
  ADEPT_CHECK(num_features >= 0, ValueError, "{}: num_features must be >= 0, got {}", this->type_name(), num_features);
  register_parameter("weight", affine ? ones({num_features}) : Tensor());
  register_parameter("bias", affine ? zeros({num_features}) : Tensor());
  register_buffer("running_mean", track_running_stats ? zeros({num_features}) : Tensor());
  register_buffer("running_var", track_running_stats ? ones({num_features}) : Tensor());
  register_buffer("num_batches_tracked", track_running_stats ? zeros({}, kInt64) : Tensor());
}

void BatchNorm::reset_running_stats() {
  if (!track_running_stats) return;
  NoGradGuard ng;
  buffer("running_mean").zero_();
  buffer("running_var").fill_(1);
  buffer("num_batches_tracked").zero_();
}

void BatchNorm::reset_parameters() {
  reset_running_stats();
  if (!affine) return;
  NoGradGuard ng;
  parameter("weight").fill_(1);
  parameter("bias").zero_();
}

Tensor BatchNorm::forward(const Tensor& input) { return forward_impl(input, false); }

Tensor BatchNorm::forward_silu(const Tensor& input) { return forward_impl(input, true); }

Tensor BatchNorm::forward_impl(const Tensor& input, bool silu) {
  check_input_dim(input);
  Tensor& nbt = buffer("num_batches_tracked");
  if (is_training() && track_running_stats && nbt.defined()) {
    NoGradGuard ng;
    nbt.add_(Scalar(int64_t{1}));
  }
  const Tensor& rm = buffer("running_mean");
  const Tensor& rv = buffer("running_var");
  bool use_batch_stats = is_training() || (!rm.defined() && !rv.defined());
  // Running stats are updated only in training with tracking, and read only in eval.
  bool pass_stats = !is_training() || track_running_stats;
  return (silu ? functional::batch_norm_silu : functional::batch_norm)(
      input, pass_stats ? rm : Tensor(), pass_stats ? rv : Tensor(), parameter("weight"), parameter("bias"),
      use_batch_stats, momentum, eps, nbt);
}

std::string BatchNorm::extra_repr() const {
  return fmt::format("{}, eps={}, momentum={}, affine={}, track_running_stats={}", num_features, detail::py_float(eps),
                     detail::py_optional_float(momentum), detail::py_bool(affine),
                     detail::py_bool(track_running_stats));
}

void BatchNorm1d::check_input_dim(const Tensor& input) const {
  ADEPT_CHECK(input.dim() == 2 || input.dim() == 3, ValueError, "expected 2D or 3D input (got {}D input)", input.dim());
}

void BatchNorm2d::check_input_dim(const Tensor& input) const {
  ADEPT_CHECK(input.dim() == 4, ValueError, "expected 4D input (got {}D input)", input.dim());
}

}  // namespace adept::nn
