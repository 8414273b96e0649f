// ONNX normalization ops: BatchNormalization (inference with the running statistics, or training_mode with
// the batch's, returning the updated statistics, which the evaluator also writes into the running-stat
// buffers as torch's BatchNorm does in training), InstanceNormalization and LayerNormalization
// (https://onnx.ai/onnx/operators/).
#include "adept/ops/normalization.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/reduce.h"
#include "adept/ops/shape.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

// A per-channel (C) tensor shaped to broadcast over (N, C, *).
Tensor per_channel(const Tensor& t, int64_t rank) {
  Shape s(rank, 1);
  s[1] = -1;
  return t.reshape(s);
}

Out batch_norm_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  ADEPT_CHECK(x.dim() >= 2, ShapeError, "BatchNormalization: the input must be (N, C, ...), got rank {}", x.dim());
  Tensor scale = c.input(1).to(x.dtype()), bias = c.input(2).to(x.dtype());
  Tensor mean = c.input(3), var = c.input(4);
  double eps = c.attr_float("epsilon", 1e-5f);
  // training_mode is an attribute from opset 14; before, extra outputs asked for the training form.
  bool training = c.opset() >= 14 ? c.attr_int("training_mode", 0) != 0 : c.num_outputs() > 1;
  if (!training) return {batch_norm(x, mean.to(x.dtype()), var.to(x.dtype()), scale, bias, false, 0.0, eps)};
  Shape dims = {0};
  for (int64_t i = 2; i < x.dim(); ++i) dims.push_back(i);
  Tensor batch_mean = adept::mean(x, dims);
  Tensor batch_var = adept::var(x, dims, 0);
  int64_t r = x.dim();
  Tensor y = add(mul(div(sub(x, per_channel(batch_mean, r)), sqrt(add(per_channel(batch_var, r), eps))),
                     per_channel(scale, r)),
                 per_channel(bias, r));
  double momentum = c.attr_float("momentum", 0.9f);
  Tensor running_mean = add(mul(mean, momentum), mul(batch_mean.to(mean.dtype()), 1.0 - momentum));
  Tensor running_var = add(mul(var, momentum), mul(batch_var.to(var.dtype()), 1.0 - momentum));
  // Opsets 9-13 may ask for saved_mean / saved_var too: the batch's statistics (the spec's reference).
  return {y, running_mean, running_var, batch_mean.to(x.dtype()), batch_var.to(x.dtype())};
}

Out instance_norm_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  ADEPT_CHECK(x.dim() >= 3, ShapeError, "InstanceNormalization: the input must be (N, C, D1, ...), got rank {}",
              x.dim());
  return {group_norm(x, x.size(1), c.input(1), c.input(2), c.attr_float("epsilon", 1e-5f))};
}

// LayerNormalization-17: normalizes over the axes from `axis` on; Mean and InvStdDev (kept dims) are
// optional outputs.
Out layer_norm_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t axis = c.axis(c.attr_int("axis", -1), x.dim());
  double eps = c.attr_float("epsilon", 1e-5f);
  Shape normalized(x.sizes().begin() + axis, x.sizes().end());
  Tensor scale = c.input(1), bias = c.has_input(2) ? c.input(2) : Tensor();
  if (c.num_outputs() == 1) {
    return {layer_norm(x, normalized, scale.expand(normalized).contiguous(),
                       bias.defined() ? bias.expand(normalized).contiguous() : Tensor(), eps)};
  }
  Shape dims;
  for (int64_t i = axis; i < x.dim(); ++i) dims.push_back(i);
  Tensor mu = adept::mean(x, dims, true);
  Tensor inv_std = rsqrt(add(adept::var(x, dims, 0, true), eps));
  Tensor y = mul(mul(sub(x, mu), inv_std), scale);
  if (bias.defined()) y = add(y, bias);
  return {y, mu, inv_std};
}

}  // namespace

void register_norm_ops(OpRegistry& r) {
  r.add("BatchNormalization", 9,
        {batch_norm_op, nullptr, {{3, InputRole::State}, {4, InputRole::State}}, {{1, 3}, {2, 4}}});
  r.add("InstanceNormalization", 6, {instance_norm_op});
  r.add("LayerNormalization", 17, {layer_norm_op});
}

}  // namespace adept::onnx::detail
