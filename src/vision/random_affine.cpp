// Random affine / perspective warp with box mapping (Ultralytics' RandomPerspective).
#include <cmath>
#include <numbers>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/cv_tensor.h"

namespace adept::vision {

namespace {

/// Ultralytics' box_candidates: the warped box `now` (clipped) is kept when it is wider and
/// taller than 2 px, keeps > 10% of the area of the original box scaled by s (`w0`, `h0`), and
/// has an aspect ratio < 100.
bool box_candidate(double w0, double h0, double w, double h) {
  constexpr double eps = 1e-16;
  const double ar = std::max(w / (h + eps), h / (w + eps));
  return w > 2 && h > 2 && w * h / (w0 * h0 + eps) > 0.1 && ar < 100;
}

}  // namespace

LabeledImage random_affine(const LabeledImage& in, const AugmentOptions& opt, int border, Rng& rng) {
  detail::check_labeled(in, "random_affine");
  detail::check_options(opt, "random_affine");
  const auto h = static_cast<int>(in.image.size(0)), w = static_cast<int>(in.image.size(1));
  const int out_w = w + 2 * border, out_h = h + 2 * border;
  ADEPT_CHECK(out_w > 0 && out_h > 0, ValueError,
              "random_affine: border {} leaves no output for an image of {}x{} (H x W)", border, h, w);
  constexpr double deg = std::numbers::pi / 180;

  // Draw order as Ultralytics: perspective x, y; angle; scale; shear x, y; translation x, y.
  cv::Matx33d C = cv::Matx33d::eye(), P = cv::Matx33d::eye(), R = cv::Matx33d::eye(),
              S = cv::Matx33d::eye(), T = cv::Matx33d::eye();
  C(0, 2) = -w / 2.0;
  C(1, 2) = -h / 2.0;
  P(2, 0) = detail::uniform(rng, -opt.perspective, opt.perspective);
  P(2, 1) = detail::uniform(rng, -opt.perspective, opt.perspective);
  const double a = detail::uniform(rng, -opt.degrees, opt.degrees) * deg;
  const double s = detail::uniform(rng, 1 - opt.scale, 1 + opt.scale);
  // cv::getRotationMatrix2D(centre (0, 0), a, s): counter-clockwise for positive a.
  R(0, 0) = R(1, 1) = s * std::cos(a);
  R(0, 1) = s * std::sin(a);
  R(1, 0) = -s * std::sin(a);
  S(0, 1) = std::tan(detail::uniform(rng, -opt.shear, opt.shear) * deg);
  S(1, 0) = std::tan(detail::uniform(rng, -opt.shear, opt.shear) * deg);
  T(0, 2) = detail::uniform(rng, 0.5 - opt.translate, 0.5 + opt.translate) * out_w;
  T(1, 2) = detail::uniform(rng, 0.5 - opt.translate, 0.5 + opt.translate) * out_h;
  const cv::Matx33d M = T * S * R * P * C;

  const cv::Mat src = detail::as_mat(in.image);
  cv::Mat out;
  const cv::Scalar fill = cv::Scalar::all(114);
  if (border == 0 && M == cv::Matx33d::eye()) {
    out = src.clone();
  } else if (opt.perspective != 0) {
    cv::warpPerspective(src, out, M, cv::Size(out_w, out_h), cv::INTER_LINEAR, cv::BORDER_CONSTANT, fill);
  } else {
    cv::warpAffine(src, out, cv::Matx23d(M.val), cv::Size(out_w, out_h), cv::INTER_LINEAR,
                   cv::BORDER_CONSTANT, fill);
  }

  std::vector<detail::Box> boxes = detail::read_boxes(in);
  std::vector<detail::Box> kept;
  for (const detail::Box& b : boxes) {
    const double corners[4][2] = {{b.x1, b.y1}, {b.x2, b.y2}, {b.x1, b.y2}, {b.x2, b.y1}};
    double x1 = INFINITY, y1 = INFINITY, x2 = -INFINITY, y2 = -INFINITY;
    for (const auto& c : corners) {
      const cv::Vec3d p = M * cv::Vec3d(c[0], c[1], 1);
      const double z = opt.perspective != 0 ? p[2] : 1;
      x1 = std::min(x1, p[0] / z), x2 = std::max(x2, p[0] / z);
      y1 = std::min(y1, p[1] / z), y2 = std::max(y2, p[1] / z);
    }
    x1 = std::clamp(x1, 0.0, double(out_w)), x2 = std::clamp(x2, 0.0, double(out_w));
    y1 = std::clamp(y1, 0.0, double(out_h)), y2 = std::clamp(y2, 0.0, double(out_h));
    if (box_candidate(double(b.width()) * s, double(b.height()) * s, x2 - x1, y2 - y1))
      kept.push_back({float(x1), float(y1), float(x2), float(y2), b.cls});
  }
  return detail::make_labeled(detail::from_mat(out), std::move(kept));
}

}  // namespace adept::vision
