// Loss layers over nn::functional's losses.
#include "adept/nn/modules/loss.h"

#include "adept/nn/functional/loss.h"

namespace adept::nn {

namespace F = functional;

BCEWithLogitsLoss::BCEWithLogitsLoss(const Tensor& weight, std::string reduction, const Tensor& pos_weight)
    : Loss("BCEWithLogitsLoss", std::move(reduction)) {
  register_buffer("weight", weight);
  register_buffer("pos_weight", pos_weight);
}
Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, buffer("weight"), reduction, buffer("pos_weight"));
}

BCELoss::BCELoss(const Tensor& weight, std::string reduction) : Loss("BCELoss", std::move(reduction)) {
  register_buffer("weight", weight);
}
Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, buffer("weight"), reduction);
}

CrossEntropyLoss::CrossEntropyLoss(const Tensor& weight, int64_t ignore_index, std::string reduction,
                                   double label_smoothing)
    : Loss("CrossEntropyLoss", std::move(reduction)), ignore_index(ignore_index), label_smoothing(label_smoothing) {
  register_buffer("weight", weight);
}
Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, buffer("weight"), ignore_index, reduction, label_smoothing);
}

NLLLoss::NLLLoss(const Tensor& weight, int64_t ignore_index, std::string reduction)
    : Loss("NLLLoss", std::move(reduction)), ignore_index(ignore_index) {
  register_buffer("weight", weight);
}
Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, buffer("weight"), ignore_index, reduction);
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) { return F::mse_loss(input, target, reduction); }
Tensor L1Loss::forward(const Tensor& input, const Tensor& target) { return F::l1_loss(input, target, reduction); }
Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, reduction, beta);
}

}  // namespace adept::nn
