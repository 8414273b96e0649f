// LayerNorm and GroupNorm layers.
#include "adept/nn/modules/normalization.h"

#include "adept/autograd.h"
#include "adept/nn/functional/normalization.h"
#include "adept/ops/creation.h"
#include "repr_util.h"

namespace adept::nn {

LayerNorm::LayerNorm(Shape normalized_shape, double eps, bool elementwise_affine)
    : Module("LayerNorm"), normalized_shape(std::move(normalized_shape)), eps(eps),
      elementwise_affine(elementwise_affine) {
  for (int64_t s : this->normalized_shape)
    ADEPT_CHECK(s >= 0, ValueError, "LayerNorm: normalized_shape entries must be >= 0, got {}", detail::py_tuple(this->normalized_shape));
  register_parameter("weight", elementwise_affine ? ones(this->normalized_shape) : Tensor());
  register_parameter("bias", elementwise_affine ? zeros(this->normalized_shape) : Tensor());
}

void LayerNorm::reset_parameters() {
  if (!elementwise_affine) return;
  NoGradGuard ng;
  parameter("weight").fill_(1);
  parameter("bias").zero_();
}

Tensor LayerNorm::forward(const Tensor& input) {
  return functional::layer_norm(input, normalized_shape, parameter("weight"), parameter("bias"), eps);
}

std::string LayerNorm::extra_repr() const {
  return fmt::format("{}, eps={}, elementwise_affine={}", detail::py_tuple(normalized_shape), detail::py_float(eps),
                     detail::py_bool(elementwise_affine));
}

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine)
    : Module("GroupNorm"), num_groups(num_groups), num_channels(num_channels), eps(eps), affine(affine) {
  ADEPT_CHECK(num_groups > 0, ValueError, "GroupNorm: num_groups must be positive, got {}", num_groups);
  ADEPT_CHECK(num_channels % num_groups == 0, ValueError, "num_channels must be divisible by num_groups (got {} and {})",
              num_channels, num_groups);
  register_parameter("weight", affine ? ones({num_channels}) : Tensor());
  register_parameter("bias", affine ? zeros({num_channels}) : Tensor());
}

void GroupNorm::reset_parameters() {
  if (!affine) return;
  NoGradGuard ng;
  parameter("weight").fill_(1);
  parameter("bias").zero_();
}

Tensor GroupNorm::forward(const Tensor& input) {
  return functional::group_norm(input, num_groups, parameter("weight"), parameter("bias"), eps);
}

std::string GroupNorm::extra_repr() const {
  return fmt::format("{}, {}, eps={}, affine={}", num_groups, num_channels, detail::py_float(eps), detail::py_bool(affine));
}

}  // namespace adept::nn
