// Umbrella header of the data pipeline: datasets, samplers, collate, DataLoader.
#pragma once
#include "adept/data/collate.h"
#include "adept/data/dataloader.h"
#include "adept/data/dataset.h"
#include "adept/data/sampler.h"
#include "adept/data/tensor_dict.h"
