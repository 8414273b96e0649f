// Four-image mosaic (Ultralytics' Mosaic._mosaic4).
#include <opencv2/core.hpp>

#include "vision/cv_tensor.h"

namespace adept::vision {

LabeledImage mosaic4(const std::array<LabeledImage, 4>& in, int imgsz, Rng& rng) {
  for (const LabeledImage& li : in) detail::check_labeled(li, "mosaic4");
  ADEPT_CHECK(imgsz > 0, ValueError, "mosaic4: imgsz must be positive, got {}", imgsz);
  const int s = imgsz, s2 = 2 * imgsz;
  // Ultralytics: yc, xc = int(uniform(-border, 2 s + border)) with border = -(s // 2); yc first.
  const int yc = static_cast<int>(detail::uniform(rng, s / 2, s2 - s / 2));
  const int xc = static_cast<int>(detail::uniform(rng, s / 2, s2 - s / 2));
  cv::Mat canvas(s2, s2, CV_8UC3, cv::Scalar::all(114));
  std::vector<detail::Box> boxes;
  for (int i = 0; i < 4; ++i) {
    const auto h = static_cast<int>(in[i].image.size(0)), w = static_cast<int>(in[i].image.size(1));
    // Canvas region a = [x1a, x2a) x [y1a, y2a) touching the centre, and the same-sized region b
    // of the image next to the centre: its bottom-right, bottom-left, top-right, top-left corner.
    int x1a, y1a, x2a, y2a, x1b, y1b;
    if (i == 0) {  // top left
      x1a = std::max(xc - w, 0), y1a = std::max(yc - h, 0), x2a = xc, y2a = yc;
      x1b = w - (x2a - x1a), y1b = h - (y2a - y1a);
    } else if (i == 1) {  // top right
      x1a = xc, y1a = std::max(yc - h, 0), x2a = std::min(xc + w, s2), y2a = yc;
      x1b = 0, y1b = h - (y2a - y1a);
    } else if (i == 2) {  // bottom left
      x1a = std::max(xc - w, 0), y1a = yc, x2a = xc, y2a = std::min(s2, yc + h);
      x1b = w - (x2a - x1a), y1b = 0;
    } else {  // bottom right
      x1a = xc, y1a = yc, x2a = std::min(xc + w, s2), y2a = std::min(s2, yc + h);
      x1b = 0, y1b = 0;
    }
    const cv::Size size(x2a - x1a, y2a - y1a);
    if (size.area() > 0)
      detail::as_mat(in[i].image)(cv::Rect(cv::Point(x1b, y1b), size))
          .copyTo(canvas(cv::Rect(cv::Point(x1a, y1a), size)));
    const auto padw = static_cast<float>(x1a - x1b), padh = static_cast<float>(y1a - y1b);
    for (detail::Box b : detail::read_boxes(in[i])) {
      b.x1 += padw, b.x2 += padw, b.y1 += padh, b.y2 += padh;
      boxes.push_back(b);
    }
  }
  return detail::make_labeled(detail::from_mat(canvas), std::move(boxes));
}

}  // namespace adept::vision
