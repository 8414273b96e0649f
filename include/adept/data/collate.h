// Collate functions: samples -> one batch.
#pragma once
#include <functional>
#include <vector>

#include "adept/data/tensor_dict.h"

namespace adept::data {

/// Turns the samples of one batch into the batch.
using CollateFn = std::function<Batch(std::vector<Sample>&&)>;

/// torch's default_collate for tensors: every key is stacked along a new first dimension,
/// (shape) -> (B, shape). ValueError when the samples have different keys (naming the sample and
/// the keys), ShapeError (from stack) when one key's shapes differ; an empty list gives an empty
/// batch.
Batch default_collate(std::vector<Sample>&& samples);

}  // namespace adept::data
