// linear: input @ weight^T + bias, through addmm for 2-d inputs (one GEMM with the bias folded in).
#include "adept/nn/functional/linear.h"

#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept::nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (autocast::Scope s(autocast::Policy::Lower, {&input, &weight, &bias}); s) return linear(s[0], s[1], s[2]);
  ADEPT_CHECK(weight.dim() == 1 || weight.dim() == 2, ShapeError,
              "linear: weight must be 1-d (in_features) or 2-d (out_features, in_features), got shape {}",
              shape_str(weight.sizes()));
  ADEPT_CHECK(input.dim() >= 1, ShapeError, "linear: input must have at least 1 dim, got a 0-d tensor");
  const int64_t in_features = weight.size(-1);
  ADEPT_CHECK(input.size(-1) == in_features, ShapeError,
              "linear: input shape {} and weight shape {} cannot be multiplied (input's last dim must be in_features "
              "= {})", shape_str(input.sizes()), shape_str(weight.sizes()), in_features);
  Tensor wt = weight.dim() == 2 ? weight.t() : weight;
  if (input.dim() == 2 && weight.dim() == 2 && bias.defined() && bias.dim() <= 1) {
    ADEPT_CHECK(bias.dim() == 0 || bias.size(0) == weight.size(0) || bias.size(0) == 1, ShapeError,
                "linear: bias of shape {} does not match out_features = {}", shape_str(bias.sizes()), weight.size(0));
    return addmm(bias, input, wt);
  }
  Tensor out = matmul(input, wt);
  if (!bias.defined()) return out;
  ADEPT_CHECK(broadcast_shapes(out.sizes(), bias.sizes()) == out.sizes(), ShapeError,
              "linear: bias of shape {} does not broadcast to the output shape {}", shape_str(bias.sizes()),
              shape_str(out.sizes()));
  return out + bias;
}

}  // namespace adept::nn::functional
