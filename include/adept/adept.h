// Umbrella header of the Adept C++ API.
#pragma once
#include "adept/autograd.h"
#include "adept/ops.h"
#include "adept/parallel.h"
#include "adept/tensor.h"
