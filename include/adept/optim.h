// Optimizers, learning-rate schedulers and the weight EMA (torch.optim + Ultralytics' ModelEMA).
#pragma once
#include "adept/optim/adam.h"
#include "adept/optim/ema.h"
#include "adept/optim/grad_scaler.h"
#include "adept/optim/lr_scheduler.h"
#include "adept/optim/optimizer.h"
#include "adept/optim/sgd.h"
