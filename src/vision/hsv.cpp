// HSV colour jitter through per-channel lookup tables (Ultralytics' RandomHSV).
#include <array>
#include <cmath>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/cv_tensor.h"

namespace adept::vision {

void hsv_gains(Tensor& image, double gain_h, double gain_s, double gain_v) {
  detail::check_image(image, "hsv_gains");
  ADEPT_CHECK(std::isfinite(gain_h) && std::isfinite(gain_s) && std::isfinite(gain_v), ValueError,
              "hsv_gains: gains must be finite, got ({}, {}, {})", gain_h, gain_s, gain_v);
  // The tables of Ultralytics: H -> (x * gh) mod 180 (floored, so negative products wrap too),
  // S, V -> clip(x * g, 0, 255), each truncated to uint8.
  cv::Mat lut_h(1, 256, CV_8U), lut_s(1, 256, CV_8U), lut_v(1, 256, CV_8U);
  for (int x = 0; x < 256; ++x) {
    const double h = x * gain_h;
    lut_h.at<uchar>(x) = static_cast<uchar>(h - 180 * std::floor(h / 180));
    lut_s.at<uchar>(x) = static_cast<uchar>(std::clamp(x * gain_s, 0.0, 255.0));
    lut_v.at<uchar>(x) = static_cast<uchar>(std::clamp(x * gain_v, 0.0, 255.0));
  }
  cv::Mat img = detail::as_mat(image), hsv;
  cv::cvtColor(img, hsv, cv::COLOR_BGR2HSV);
  std::array<cv::Mat, 3> ch;
  cv::split(hsv, ch.data());
  cv::LUT(ch[0], lut_h, ch[0]);
  cv::LUT(ch[1], lut_s, ch[1]);
  cv::LUT(ch[2], lut_v, ch[2]);
  cv::merge(ch.data(), 3, hsv);
  cv::cvtColor(hsv, img, cv::COLOR_HSV2BGR);  // writes into the tensor's memory
}

void hsv_jitter(LabeledImage& io, const AugmentOptions& opt, Rng& rng) {
  detail::check_labeled(io, "hsv_jitter");
  detail::check_options(opt, "hsv_jitter");
  if (opt.hsv_h == 0 && opt.hsv_s == 0 && opt.hsv_v == 0) return;  // as Ultralytics: no draw
  const double rh = detail::uniform(rng, -1, 1) * opt.hsv_h + 1;
  const double rs = detail::uniform(rng, -1, 1) * opt.hsv_s + 1;
  const double rv = detail::uniform(rng, -1, 1) * opt.hsv_v + 1;
  hsv_gains(io.image, rh, rs, rv);
}

}  // namespace adept::vision
