// All nn layer classes (torch.nn's modules).
#pragma once
#include "adept/nn/modules/activation.h"
#include "adept/nn/modules/batchnorm.h"
#include "adept/nn/modules/container.h"
#include "adept/nn/modules/conv.h"
#include "adept/nn/modules/dropout.h"
#include "adept/nn/modules/flatten.h"
#include "adept/nn/modules/linear.h"
#include "adept/nn/modules/loss.h"
#include "adept/nn/modules/normalization.h"
#include "adept/nn/modules/pooling.h"
#include "adept/nn/modules/upsampling.h"
