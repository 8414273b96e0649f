// 2-d pooling in torch.nn.functional's place: the ops of adept/ops/pooling.h, under adept::nn::functional.
#pragma once
#include "adept/ops/pooling.h"

namespace adept::nn::functional {
using adept::max_pool2d;
using adept::max_pool2d_with_indices;
using adept::avg_pool2d;
using adept::adaptive_avg_pool2d;
using adept::adaptive_max_pool2d;
using adept::adaptive_max_pool2d_with_indices;
using adept::max_unpool2d;
}  // namespace adept::nn::functional
