// Gradient clipping by total norm or by value (torch 1.13 torch.nn.utils.clip_grad).
#include "adept/nn/utils/clip_grad.h"

#include <cmath>

#include "adept/autograd.h"
#include "adept/ops.h"

namespace adept::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    Tensor g = p.defined() ? p.grad() : Tensor();
    if (g.defined()) grads.push_back(g);
  }
  if (grads.empty()) return zeros({});
  const Device device = grads[0].device();
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) {
    Tensor n = std::isinf(norm_type) && norm_type > 0 ? g.detach().abs().max() : norm(g.detach(), norm_type);
    norms.push_back(n.to(device));
  }
  Tensor total;
  if (std::isinf(norm_type) && norm_type > 0) {
    total = norms.size() == 1 ? norms[0] : stack(norms).max();
  } else {
    total = norm(stack(norms), norm_type);
  }
  if (error_if_nonfinite) {
    ADEPT_CHECK(isfinite(total).item<bool>(), Error,
                "clip_grad_norm_: The total norm of order {} for gradients from `parameters` is non-finite, so it "
                "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, "
                "set `error_if_nonfinite=False`",
                norm_type);
  }
  const Tensor coef = clamp(div(Scalar(max_norm), add(total, Scalar(1e-6))), std::nullopt, Scalar(1.0));
  for (Tensor& g : grads) g.mul_(coef.to(g.device()));
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    Tensor g = p.defined() ? p.grad() : Tensor();
    if (g.defined()) g.clamp_(-clip_value, clip_value);
  }
}

}  // namespace adept::nn::utils
