// Identity, Linear, Flatten and Dropout layers.
#include "adept/nn/modules/linear.h"

#include "adept/autograd.h"
#include "adept/nn/functional/dropout.h"
#include "adept/nn/functional/linear.h"
#include "adept/nn/modules/dropout.h"
#include "adept/nn/modules/flatten.h"
#include "adept/ops/creation.h"
#include "default_init.h"
#include "repr_util.h"

namespace adept::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias)
    : Module("Linear"), in_features(in_features), out_features(out_features) {
  ADEPT_CHECK(in_features >= 0 && out_features >= 0, ValueError,
              "Linear: in_features and out_features must be >= 0, got {} and {}", in_features, out_features);
  register_parameter("weight", empty({out_features, in_features}));
  register_parameter("bias", bias ? empty({out_features}) : Tensor());
  reset_parameters();
}

void Linear::reset_parameters() {
  NoGradGuard ng;
  detail::reset_weight_and_bias(parameter("weight"), parameter("bias"));
}

Tensor Linear::forward(const Tensor& input) {
  return functional::linear(input, parameter("weight"), parameter("bias"));
}

std::string Linear::extra_repr() const {
  return fmt::format("in_features={}, out_features={}, bias={}", in_features, out_features,
                     detail::py_bool(parameter("bias").defined()));
}

Flatten::Flatten(int64_t start_dim, int64_t end_dim) : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}

Tensor Flatten::forward(const Tensor& input) { return input.flatten(start_dim, end_dim); }

std::string Flatten::extra_repr() const { return fmt::format("start_dim={}, end_dim={}", start_dim, end_dim); }

Dropout::Dropout(double p, bool inplace) : Module("Dropout"), p(p), inplace(inplace) {
  ADEPT_CHECK(p >= 0 && p <= 1, ValueError, "dropout probability has to be between 0 and 1, but got {}", p);
}

Tensor Dropout::forward(const Tensor& input) { return functional::dropout(input, p, is_training()); }

std::string Dropout::extra_repr() const {
  return fmt::format("p={}, inplace={}", detail::py_float(p), detail::py_bool(inplace));
}

}  // namespace adept::nn
