// SyncBatchNorm (adept/distributed/sync_batch_norm.h): global batch statistics from every rank's
// (count, mean, M2), merged in float64 on the host; a backward node whose per-channel sums are reduced
// over the ranks.
#include "adept/distributed/sync_batch_norm.h"

#include "adept/autograd.h"
#include "adept/distributed.h"
#include "adept/nn/functional.h"
#include "adept/ops.h"
#include "autograd/node.h"

namespace adept::distributed {

SyncBatchNorm::SyncBatchNorm(int64_t num_features, double eps, std::optional<double> momentum, bool affine,
                             bool track_running_stats)
    : nn::BatchNorm("SyncBatchNorm", num_features, eps, momentum, affine, track_running_stats) {}

void SyncBatchNorm::check_input_dim(const Tensor& input) const {
  ADEPT_CHECK(input.dim() >= 2, ValueError, "expected at least 2D input (got {}D input)", input.dim());
}

Tensor SyncBatchNorm::forward_impl(const Tensor& input, bool silu) {
  if (!is_training() || !is_initialized() || get_world_size() == 1) return nn::BatchNorm::forward_impl(input, silu);
  check_input_dim(input);
  ADEPT_CHECK(is_floating_point(input.dtype()), DtypeError, "SyncBatchNorm: expected a floating-point input, got {}",
              dtype_name(input.dtype()));
  const int64_t C = input.size(1);
  ADEPT_CHECK(C == num_features, ValueError, "SyncBatchNorm: input has {} channels, expected {}", C, num_features);
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  Shape bshape(input.dim(), 1);
  bshape[1] = C;
  const Dtype acc = input.dtype() == kFloat64 ? kFloat64 : kFloat32;

  // This rank's count, mean and M2 (sum of squared deviations) per channel, then everyone's.
  Tensor mean, var;
  double total = 0;
  {
    NoGradGuard no_grad;
    const Tensor x = input.detach().to(acc);
    const int64_t n = C > 0 ? input.numel() / C : 0;
    const Tensor m = n > 0 ? x.mean(dims) : zeros({C}, TensorOptions(acc).set_device(input.device()));
    const Tensor m2 = n > 0 ? square(x - m.view(bshape)).sum(dims) : zeros_like(m);
    Tensor mine = cat({full({1}, static_cast<double>(n), TensorOptions(kFloat64)), m.to(kCPU, kFloat64),
                       m2.to(kCPU, kFloat64)});
    const int world = get_world_size();
    Tensor all = empty({world * (1 + 2 * C)}, TensorOptions(kFloat64));
    all_gather_into_tensor(all, mine);
    const Tensor rows = all.view({world, 1 + 2 * C});
    const Tensor counts = rows.narrow(1, 0, 1);                         // (W, 1)
    total = counts.sum().item<double>();
    ADEPT_CHECK(total > 1, ValueError,
                "SyncBatchNorm: expected more than 1 value per channel when training, got {} over all ranks "
                "(input {} on rank {})", total, fmt::join(input.sizes(), "x"), get_rank());
    const Tensor means = rows.narrow(1, 1, C), m2s = rows.narrow(1, 1 + C, C);
    const Tensor gmean = (means * counts).sum({0}) / total;
    const Tensor gm2 = (m2s + counts * square(means - gmean.view({1, C}))).sum({0});
    const Tensor gvar = gm2 / total;
    mean = gmean.to(input.device(), acc);
    var = gvar.to(input.device(), acc);
    Tensor& nbt = buffer("num_batches_tracked");
    Tensor& rm = buffer("running_mean");
    Tensor& rv = buffer("running_var");
    if (track_running_stats && rm.defined()) {
      if (nbt.defined()) nbt.add_(Scalar(int64_t{1}));
      const double f = momentum ? *momentum : 1.0 / static_cast<double>(nbt.item<int64_t>());
      rm.mul_(1 - f).add_((gmean * f).to(rm.device(), rm.dtype()));
      rv.mul_(1 - f).add_((gvar * (f * total / (total - 1))).to(rv.device(), rv.dtype()));
    }
  }
  const Tensor invstd = rsqrt(var + eps);
  const Tensor& weight = parameter("weight");
  const Tensor& bias = parameter("bias");
  Tensor y;
  {
    NoGradGuard no_grad;
    Tensor xhat = (input.detach().to(acc) - mean.view(bshape)) * invstd.view(bshape);
    if (weight.defined()) xhat = xhat * weight.detach().to(acc).view(bshape) + bias.detach().to(acc).view(bshape);
    y = xhat.to(input.dtype());
  }
  const autograd::SavedTensor saved_x(input);
  const autograd::SavedTensor saved_w(weight.defined() ? weight : Tensor());
  autograd::record("SyncBatchNormBackward", {input, weight, bias}, {y},
                   [saved_x, saved_w, mean, invstd, dims, bshape, total, acc](const std::vector<Tensor>& grads) {
                     const Tensor x = saved_x.get();
                     const Tensor dy = grads[0].to(acc);
                     const Tensor xhat = (x.to(acc) - mean.view(bshape)) * invstd.view(bshape);
                     const Tensor sum_dy = dy.sum(dims);
                     const Tensor sum_dy_xhat = (dy * xhat).sum(dims);
                     // The global sums: every rank's images take part in every rank's statistics.
                     const int64_t C = sum_dy.numel();
                     Tensor both = cat({sum_dy, sum_dy_xhat}).to(kCPU, kFloat64);
                     all_reduce(both);
                     const Tensor g = both.to(x.device(), acc);
                     const Tensor g_dy = g.narrow(0, 0, C).view(bshape), g_dyx = g.narrow(0, C, C).view(bshape);
                     Tensor scale = invstd.view(bshape);
                     const Tensor w = saved_w.defined() ? saved_w.get() : Tensor();
                     if (w.defined()) scale = scale * w.to(acc).view(bshape);
                     const Tensor dx = (scale * (dy - g_dy / total - xhat * (g_dyx / total))).to(x.dtype());
                     std::vector<Tensor> out = {dx, Tensor(), Tensor()};
                     if (w.defined()) {
                       out[1] = sum_dy_xhat.to(w.dtype());
                       out[2] = sum_dy.to(w.dtype());
                     }
                     return out;
                   });
  return silu ? adept::silu(y) : y;
}

std::shared_ptr<nn::Module> convert_sync_batchnorm(std::shared_ptr<nn::Module> module) {
  if (!module) return module;
  auto* bn = dynamic_cast<nn::BatchNorm*>(module.get());
  if (bn && !dynamic_cast<SyncBatchNorm*>(bn)) {
    auto sync = std::make_shared<SyncBatchNorm>(bn->num_features, bn->eps, bn->momentum, bn->affine,
                                                bn->track_running_stats);
    // Share the tensors themselves, as torch does: an optimizer built before keeps working.
    for (const char* name : {"weight", "bias"}) sync->register_parameter(name, bn->parameter(name), bn->parameter(name).defined() && bn->parameter(name).requires_grad());
    for (const char* name : {"running_mean", "running_var", "num_batches_tracked"}) {
      sync->register_buffer(name, bn->has_buffer(name) ? bn->buffer(name) : Tensor());
    }
    sync->set_training(bn->is_training());
    return sync;
  }
  for (const auto& [name, child] : module->named_children()) {
    auto converted = convert_sync_batchnorm(child);
    if (converted != child) module->replace_module(name, converted);
  }
  return module;
}

}  // namespace adept::distributed
