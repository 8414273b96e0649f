// Left-right and up-down mirrors with their boxes (Ultralytics' RandomFlip).
#include <opencv2/core.hpp>

#include "vision/cv_tensor.h"

namespace adept::vision {

namespace {

/// `in` mirrored up-down when `ud`, left-right when `lr` (a copy when neither).
LabeledImage flipped(const LabeledImage& in, bool ud, bool lr) {
  cv::Mat out;
  if (ud || lr) cv::flip(detail::as_mat(in.image), out, ud && lr ? -1 : lr ? 1 : 0);
  else out = detail::as_mat(in.image).clone();
  std::vector<detail::Box> boxes = detail::read_boxes(in);
  const auto w = static_cast<float>(in.image.size(1)), h = static_cast<float>(in.image.size(0));
  for (detail::Box& b : boxes) {
    if (lr) b = {w - b.x2, b.y1, w - b.x1, b.y2, b.cls};
    if (ud) b = {b.x1, h - b.y2, b.x2, h - b.y1, b.cls};
  }
  return detail::make_labeled(detail::from_mat(out), std::move(boxes));
}

}  // namespace

LabeledImage flip_lr(const LabeledImage& in) {
  detail::check_labeled(in, "flip_lr");
  return flipped(in, false, true);
}

LabeledImage flip_ud(const LabeledImage& in) {
  detail::check_labeled(in, "flip_ud");
  return flipped(in, true, false);
}

LabeledImage random_flip(const LabeledImage& in, const AugmentOptions& opt, Rng& rng) {
  detail::check_labeled(in, "random_flip");
  detail::check_options(opt, "random_flip");
  // Ultralytics' order: the vertical RandomFlip, then the horizontal one, one draw each.
  const bool ud = detail::uniform(rng, 0, 1) < opt.flipud;
  const bool lr = detail::uniform(rng, 0, 1) < opt.fliplr;
  return flipped(in, ud, lr);
}

}  // namespace adept::vision
