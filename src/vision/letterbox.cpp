// Letterbox resize-and-pad (Ultralytics' LetterBox with center=True, auto off or on).
#include <algorithm>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/cv_tensor.h"

namespace adept::vision {

Letterboxed letterbox(const LabeledImage& in, int out_h, int out_w, bool scaleup, uint8_t pad_value,
                      int auto_stride) {
  detail::check_labeled(in, "letterbox");
  ADEPT_CHECK(out_h > 0 && out_w > 0, ValueError,
              "letterbox: output size must be positive, got ({}, {})", out_h, out_w);
  ADEPT_CHECK(auto_stride >= 0, ValueError, "letterbox: auto_stride must be >= 0 (0: off), got {}", auto_stride);
  const auto h = static_cast<int>(in.image.size(0)), w = static_cast<int>(in.image.size(1));
  double r = std::min(static_cast<double>(out_h) / h, static_cast<double>(out_w) / w);
  if (!scaleup) r = std::min(r, 1.0);
  // Python's round() (half to even) of the scaled size, as Ultralytics computes it; at least 1 px.
  const int new_w = std::max(1, static_cast<int>(std::nearbyint(w * r)));
  const int new_h = std::max(1, static_cast<int>(std::nearbyint(h * r)));
  int pad_w = out_w - new_w, pad_h = out_h - new_h;
  if (auto_stride > 0) pad_w %= auto_stride, pad_h %= auto_stride;  // both >= 0: new <= out
  const double dw = pad_w / 2.0, dh = pad_h / 2.0;
  const auto left = static_cast<int>(std::lround(dw - 0.1)), right = static_cast<int>(std::lround(dw + 0.1));
  const auto top = static_cast<int>(std::lround(dh - 0.1)), bottom = static_cast<int>(std::lround(dh + 0.1));

  cv::Mat src = detail::as_mat(in.image), resized, out;
  if (new_w != w || new_h != h) {
    cv::resize(src, resized, cv::Size(new_w, new_h), 0, 0, cv::INTER_LINEAR);
  } else {
    resized = src;
  }
  cv::copyMakeBorder(resized, out, top, bottom, left, right, cv::BORDER_CONSTANT,
                     cv::Scalar::all(pad_value));

  // Boxes: x * r + left, y * r + top, so (gain, pad) map them back exactly. (Ultralytics shifts
  // boxes by the unrounded dw, dh: up to half a pixel off the padding actually applied.)
  std::vector<detail::Box> boxes = detail::read_boxes(in);
  const auto g = static_cast<float>(r);
  for (detail::Box& b : boxes) {
    b.x1 = b.x1 * g + left, b.x2 = b.x2 * g + left;
    b.y1 = b.y1 * g + top, b.y2 = b.y2 * g + top;
  }
  return {detail::make_labeled(detail::from_mat(out), std::move(boxes)), r, double(left), double(top)};
}

}  // namespace adept::vision
