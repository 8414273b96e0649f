// Multi-tensor kernel families of the optimizers: one call updates every parameter of a group (and
// its state) on the device, without a host round trip per parameter. Devices without them (the CPU,
// whose reference is the per-tensor composite in src/optim) run the composite. All tensor lists have
// one entry per parameter, every tensor is contiguous and of the parameters' floating dtype, and each
// list's entry i has params[i]'s shape. Arithmetic is in the dtype's compute type (float for float16 /
// bfloat16), in the order of the composite formulas below.
#pragma once
#include <vector>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// torch.optim.SGD (single-tensor algorithm): d = (maximize ? -g : g) + weight_decay * p; with momentum,
/// buf = first ? d : momentum * buf + (1 - dampening) * d and d = nesterov ? d + momentum * buf : buf;
/// then p -= lr * d. `momentum_buffers` is empty when momentum == 0.
struct SGDStep {
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
  bool first = false;  // the momentum buffers are (re)initialised to d
};
ADEPT_DECLARE_KERNEL(sgd_step_kernel, void(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                                           const std::vector<Tensor>& momentum_buffers, const SGDStep& h))

/// torch.optim.Adam / AdamW (single-tensor algorithms) at one step count: g = maximize ? -g : g;
/// decoupled: p *= 1 - lr * weight_decay, else g += weight_decay * p; m = beta1 * m + (1 - beta1) * g;
/// v = beta2 * v + (1 - beta2) * g * g; amsgrad: vmax = max(vmax, v) and v' = vmax;
/// p -= step_size * m / (sqrt(v') / bias_correction2_sqrt + eps), with step_size = lr / (1 - beta1^step)
/// and bias_correction2_sqrt = sqrt(1 - beta2^step). `max_exp_avg_sqs` is empty without amsgrad.
struct AdamStep {
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  double step_size = 0, bias_correction2_sqrt = 1;
  bool decoupled = false, amsgrad = false, maximize = false;
};
ADEPT_DECLARE_KERNEL(adam_step_kernel,
                     void(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                          const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
                          const std::vector<Tensor>& max_exp_avg_sqs, const AdamStep& h))

/// Exponential moving average: averages[i] = decay * averages[i] + (1 - decay) * values[i] (values already
/// of the averages' device and dtype).
ADEPT_DECLARE_KERNEL(ema_update_kernel,
                     void(const std::vector<Tensor>& averages, const std::vector<Tensor>& values, double decay))

/// Gradient unscaling of mixed-precision training (torch._amp_foreach_non_finite_check_and_unscale_):
/// grads[i] *= inv_scale, and found_inf (a 1-element tensor of the grads' dtype and device) is set to 1
/// when an element of some grad (before the multiply) is inf or NaN, else left as it is.
ADEPT_DECLARE_KERNEL(amp_unscale_kernel,
                     void(const std::vector<Tensor>& grads, const Tensor& found_inf, double inv_scale))

}  // namespace adept
