// Internal to the synthetic shapes dataset: an image rendered without its shapes, so tests can
// tell exactly which pixels the shapes changed.
#pragma once
#include <cstdint>
#include <string>

#include "adept/vision/synthetic_shapes.h"

namespace adept::vision::detail {

/// synthetic_shapes_image(options, split, index) with no shapes drawn: the same size, background,
/// clutter, pixel noise and blur, and no boxes. Errors as synthetic_shapes_image.
LabeledImage synthetic_shapes_background(const SyntheticShapesOptions& options, const std::string& split,
                                         int64_t index);

}  // namespace adept::vision::detail
