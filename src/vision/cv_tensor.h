// Internal to the augmentations: zero-copy cv::Mat views of adept image tensors, argument checks,
// the uniform draw, and the box bookkeeping (read, clip, drop degenerate, write back) every
// transform shares.
#pragma once
#include <vector>

#include <opencv2/core.hpp>

#include "adept/vision/transforms.h"

namespace adept::vision::detail {

/// One labelled box in pixels.
struct Box {
  float x1, y1, x2, y2, cls;
  float width() const { return x2 - x1; }
  float height() const { return y2 - y1; }
};

/// Checks an image tensor: (H, W, 3) with H, W > 0 (ShapeError), uint8 (DtypeError), CPU
/// (DeviceError), contiguous (ValueError); the message names `fn` and what it got.
void check_image(const Tensor& image, const char* fn);
/// check_image on `in.image`, plus boxes (n, 4) and cls (n,) float32 on the CPU with the same n.
void check_labeled(const LabeledImage& in, const char* fn);

/// ValueError naming `fn` unless every field of `opt` is finite, the ranges (degrees, translate,
/// scale, shear, perspective, HSV gains) are >= 0, scale < 1 and the probabilities lie in [0, 1].
void check_options(const AugmentOptions& opt, const char* fn);

/// x ~ U[lo, hi) from `rng` (lo == hi gives lo); one 53-bit draw, so every call advances `rng`
/// the same way whatever the range.
double uniform(Rng& rng, double lo, double hi);

/// cv::Mat (CV_8UC3) viewing a checked image tensor's memory: writes through it change the tensor.
cv::Mat as_mat(const Tensor& image);
/// (H, W, 3) uint8 tensor viewing a continuous CV_8UC3 Mat's pixels without a copy; the tensor
/// keeps the Mat's buffer alive.
Tensor from_mat(const cv::Mat& m);

/// The boxes of a checked LabeledImage with their classes.
std::vector<Box> read_boxes(const LabeledImage& in);
/// `image` with `boxes` clipped to it; boxes left with zero width or height are dropped.
LabeledImage make_labeled(Tensor image, std::vector<Box> boxes);

}  // namespace adept::vision::detail
