// Umbrella header of the functional layers (adept::nn::functional, torch.nn.functional's names).
#pragma once
#include "adept/nn/functional/activation.h"
#include "adept/nn/functional/conv.h"
#include "adept/nn/functional/dropout.h"
#include "adept/nn/functional/interpolate.h"
#include "adept/nn/functional/linear.h"
#include "adept/nn/functional/loss.h"
#include "adept/nn/functional/normalization.h"
#include "adept/nn/functional/pooling.h"
