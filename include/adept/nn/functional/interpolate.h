// Resampling in torch.nn.functional's place: the ops of adept/ops/interpolate.h, under adept::nn::functional.
#pragma once
#include "adept/ops/interpolate.h"

namespace adept::nn::functional {
using adept::interpolate;
}  // namespace adept::nn::functional
