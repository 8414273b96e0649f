// Normalisation in torch.nn.functional's place: the ops of adept/ops/normalization.h, under adept::nn::functional.
#pragma once
#include "adept/ops/normalization.h"

namespace adept::nn::functional {
using adept::batch_norm;
using adept::batch_norm_silu;
using adept::layer_norm;
using adept::group_norm;
}  // namespace adept::nn::functional
