// All tensor ops. Include this (or the narrower headers in adept/ops/).
#pragma once
#include "adept/ops/autocast.h"
#include "adept/ops/conv.h"
#include "adept/ops/creation.h"
#include "adept/ops/index.h"
#include "adept/ops/interpolate.h"
#include "adept/ops/linalg.h"
#include "adept/ops/normalization.h"
#include "adept/ops/pointwise.h"
#include "adept/ops/pooling.h"
#include "adept/ops/random.h"
#include "adept/ops/reduce.h"
#include "adept/ops/shape.h"
