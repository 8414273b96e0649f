// Gradient clipping by total norm or by value (torch.nn.utils.clip_grad_norm_ / clip_grad_value_).
#pragma once
#include <limits>
#include <vector>

#include "adept/tensor.h"

namespace adept::nn::utils {

/// Scales the grads of `parameters` in place so that their total norm (the norm_type norm of the
/// vector of per-grad norms; inf: the largest |g|) is at most max_norm: every grad is multiplied
/// by min(1, max_norm / (total_norm + 1e-6)). Params without grad are skipped. Returns the total
/// norm before clipping as a 0-d tensor (0 when no param has a grad). Error (RuntimeError in
/// Python) when error_if_nonfinite and the norm is nan or inf. torch 1.13 clip_grad_norm_.
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every grad of `parameters` to [-clip_value, clip_value] in place. torch clip_grad_value_.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

}  // namespace adept::nn::utils
