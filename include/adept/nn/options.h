// Small argument types shared by the nn functional ops and modules (defined with the ops).
#pragma once
#include "adept/ops/options.h"

namespace adept::nn {
using adept::IntPair;
}  // namespace adept::nn
