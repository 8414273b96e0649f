// Loss functions in functional form (torch.nn.functional: cross_entropy, nll_loss,
// binary_cross_entropy(_with_logits), mse_loss, l1_loss, smooth_l1_loss, huber_loss).
// `reduction` is "mean" (average over elements; empty input -> nan), "sum" (empty -> 0) or "none"
// (unreduced, shaped as documented); any other value raises ValueError. Input and target of the
// elementwise losses broadcast together as in PyTorch (ShapeError when they cannot).
#pragma once
#include <string>

#include "adept/tensor.h"

namespace adept::nn::functional {

/// Binary cross entropy on logits, computed stably (softplus form, exact for |x| up to 1e4 and
/// beyond): loss = -w [p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))], with p = pos_weight
/// (broadcast over the last dim, i.e. per class) and w = weight (broadcast to input).
/// input, target (*) of the same shape (ValueError otherwise) -> (*) for "none", else ().
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                        const std::string& reduction = "mean", const Tensor& pos_weight = {});

/// Binary cross entropy on probabilities: loss = -w [t log x + (1 - t) log(1 - x)], each log
/// clamped at -100 as in PyTorch (gradient (x - t) / max(x (1 - x), 1e-12)). input, target (*) of
/// one shape (ValueError otherwise); ValueError when an input lies outside [0, 1].
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            const std::string& reduction = "mean");

/// Cross entropy of logits, log_softmax over the class dim followed by nll_loss.
/// input (N, C), (N, C, d1, ...) or (C). target: class indices (N) / (N, d1, ...) / () int64, or
/// class probabilities of input's shape (a float tensor). weight (C) rescales classes;
/// ignore_index marks index targets that contribute nothing. "mean" with index targets divides by
/// the summed weights of non-ignored targets (nan when all are ignored); with probability targets
/// by N * d1 * ... . label_smoothing in [0, 1] mixes the target with the uniform distribution
/// (Szegedy et al., 2016), as torch.nn.functional.cross_entropy.
/// Errors: DtypeError for non-int64 index targets; IndexError for a target outside [0, C) that is
/// not ignore_index; ValueError/ShapeError for mismatched batch or spatial sizes, weight without C
/// elements, label_smoothing outside [0, 1].
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                     int64_t ignore_index = -100, const std::string& reduction = "mean", double label_smoothing = 0.0);

/// Negative log likelihood of log-probabilities: loss_i = -weight[t_i] * input[i, t_i] (0 where
/// t_i == ignore_index). Shapes and errors as cross_entropy with index targets; "none" gives
/// target's shape.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                const std::string& reduction = "mean");

/// (input - target)^2.
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
/// |input - target|.
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
/// d = |input - target|: 0.5 d^2 / beta where d < beta, else d - 0.5 beta (beta = 0: l1_loss).
/// ValueError for beta < 0.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                      double beta = 1.0);
/// d = |input - target|: 0.5 d^2 where d < delta, else delta (d - 0.5 delta). ValueError for delta <= 0.
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean", double delta = 1.0);

}  // namespace adept::nn::functional
