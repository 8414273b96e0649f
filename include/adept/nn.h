// Umbrella header of adept::nn: Module, the layer classes, nn::functional and nn::init.
#pragma once
#include "adept/nn/functional.h"
#include "adept/nn/init.h"
#include "adept/nn/module.h"
#include "adept/nn/modules.h"
