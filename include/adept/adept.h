// Umbrella header of the Adept C++ API.
#pragma once
#include "adept/autograd.h"
#include "adept/data.h"
#include "adept/io/safetensors.h"
#include "adept/nn.h"
#include "adept/nn/utils/clip_grad.h"
#include "adept/ops.h"
#include "adept/optim.h"
#include "adept/parallel.h"
#include "adept/profiler.h"
#include "adept/set_data.h"
#include "adept/tensor.h"
