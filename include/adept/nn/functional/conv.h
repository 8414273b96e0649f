// Convolutions in torch.nn.functional's place: the ops of adept/ops/conv.h, under adept::nn::functional.
#pragma once
#include "adept/ops/conv.h"

namespace adept::nn::functional {
using adept::PaddingMode;
using adept::conv2d;
using adept::conv_transpose2d;
}  // namespace adept::nn::functional
