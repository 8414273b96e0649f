// Drawing detections with OpenCV: class colours, boxes and labels (include/adept/models/yolo/draw.h).
#include "adept/models/yolo/draw.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "adept/errors.h"
#include "adept/ops.h"
#include "ops/helpers.h"
#include "vision/cv_tensor.h"

namespace adept::models::yolo {

namespace {

// Ultralytics' Colors palette, RGB.
constexpr uint32_t kPalette[] = {0x042AFF, 0x0BDBEB, 0xF3F3F3, 0x00DFB7, 0x111F68, 0xFF6FDD, 0xFF444F,
                                 0xCCED00, 0x00F344, 0xBD00FF, 0x00B4FF, 0xDD00BA, 0x00FFFF, 0x26C000,
                                 0x01FFB3, 0x7D24FF, 0x7B0068, 0xFF1B6C, 0xFC6D2F, 0xA2FF0B};

std::string label_of(int64_t cls, double conf, const std::vector<std::string>& names, bool show_conf) {
  const std::string name =
      cls >= 0 && cls < static_cast<int64_t>(names.size()) ? names[cls] : std::to_string(cls);
  return show_conf ? fmt::format("{} {:.2f}", name, conf) : name;
}

}  // namespace

std::array<uint8_t, 3> class_color(int64_t cls) {
  const uint32_t rgb = kPalette[std::llabs(cls) % std::size(kPalette)];
  return {static_cast<uint8_t>(rgb & 0xff), static_cast<uint8_t>((rgb >> 8) & 0xff),
          static_cast<uint8_t>(rgb >> 16)};
}

void draw_detections(Tensor& image, const Tensor& boxes, const std::vector<std::string>& names, int line_width,
                     bool show_labels, bool show_conf) {
  vision::detail::check_image(image, "draw_detections");
  ADEPT_CHECK(boxes.defined() && boxes.dim() == 2 && boxes.size(1) == 6, ShapeError,
              "draw_detections: expected boxes of shape (n, 6) [x1, y1, x2, y2, conf, cls], got {}",
              boxes.defined() ? shape_str(boxes.sizes()) : std::string("an undefined tensor"));
  ADEPT_CHECK(boxes.is_floating_point(), DtypeError, "draw_detections: expected floating-point boxes, got {}",
              dtype_name(boxes.dtype()));
  ADEPT_CHECK(line_width >= 0, ValueError, "draw_detections: line_width must be >= 0 (0: automatic), got {}",
              line_width);
  cv::Mat im = vision::detail::as_mat(image);
  const int lw = line_width > 0 ? line_width
                                : std::max(static_cast<int>(std::nearbyint((im.rows + im.cols + 3) / 2.0 * 0.003)), 2);
  const double font_scale = lw / 3.0;
  const int thickness = std::max(lw - 1, 1);
  const Tensor b = boxes.detach().to(kCPU).to(kFloat64).contiguous();
  const double* p = b.data_ptr<double>();
  for (int64_t i = b.size(0) - 1; i >= 0; --i) {
    const double* row = p + 6 * i;
    const auto cls = static_cast<int64_t>(row[5]);
    const auto [cb, cg, cr] = class_color(cls);
    const cv::Scalar color(cb, cg, cr);
    cv::Point p1(static_cast<int>(row[0]), static_cast<int>(row[1]));
    const cv::Point p2(static_cast<int>(row[2]), static_cast<int>(row[3]));
    cv::rectangle(im, p1, p2, color, lw, cv::LINE_AA);
    if (!show_labels) continue;
    const std::string label = label_of(cls, row[4], names, show_conf);
    int baseline = 0;
    const cv::Size text = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, font_scale, thickness, &baseline);
    const int h = text.height + 3;  // padded
    const bool outside = p1.y >= h;  // room above the box
    // Inside the image: moved left when it would pass the right edge (not past the left one), and
    // up when below the box's corner it would pass the bottom.
    p1.x = std::max(std::min(p1.x, im.cols - text.width), 0);
    if (!outside) p1.y = std::max(std::min(p1.y, im.rows - h), 0);
    const cv::Point q(p1.x + text.width, outside ? p1.y - h : p1.y + h);
    cv::rectangle(im, p1, q, color, cv::FILLED, cv::LINE_AA);
    // Rec. 601 luma of the background decides the text colour.
    const double luma = 0.299 * cr + 0.587 * cg + 0.114 * cb;
    const cv::Scalar text_color = luma > 150 ? cv::Scalar(0, 0, 0) : cv::Scalar(255, 255, 255);
    cv::putText(im, label, cv::Point(p1.x, outside ? p1.y - 2 : p1.y + h - 1), cv::FONT_HERSHEY_SIMPLEX,
                font_scale, text_color, thickness, cv::LINE_AA);
  }
}

Tensor draw_detections_readable(const Tensor& image, const Tensor& boxes, const std::vector<std::string>& names,
                                int line_width, bool show_labels, bool show_conf, int min_side) {
  vision::detail::check_image(image, "draw_detections_readable");
  ADEPT_CHECK(min_side >= 0, ValueError, "draw_detections_readable: min_side must be >= 0, got {}", min_side);
  const int64_t long_side = std::max(image.size(0), image.size(1));
  Tensor out;
  Tensor scaled_boxes = boxes;
  if (long_side > 0 && long_side < min_side) {
    const double s = static_cast<double>(min_side) / static_cast<double>(long_side);
    const cv::Mat in = vision::detail::as_mat(image);
    const int w = std::max(1, static_cast<int>(std::lround(in.cols * s)));
    const int h = std::max(1, static_cast<int>(std::lround(in.rows * s)));
    out = empty({h, w, 3}, kUInt8);
    cv::Mat dst = vision::detail::as_mat(out);
    cv::resize(in, dst, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
    if (boxes.defined() && boxes.dim() == 2 && boxes.size(1) == 6 && boxes.is_floating_point()) {
      const Tensor b = boxes.detach().to(kCPU).to(kFloat64);
      scaled_boxes = cat({b.narrow(1, 0, 4) * Scalar(s), b.narrow(1, 4, 2)}, 1);
    }
  } else {
    out = image.clone();
  }
  draw_detections(out, scaled_boxes, names, line_width, show_labels, show_conf);
  return out;
}

}  // namespace adept::models::yolo
