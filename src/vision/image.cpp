// Image decoding and encoding (imread, imwrite: the codecs are in codec_*.cpp), the long-side resize of Ultralytics' loader, and OpenCV thread control.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/codecs.h"
#include "vision/cv_tensor.h"
#include "vision/opencv_threads.h"

namespace adept::vision {

namespace detail {
void disable_opencv_threads() { cv::setNumThreads(0); }
}  // namespace detail

Tensor imread(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  ADEPT_CHECK(fs::exists(path, ec), IOError, "imread: no such file: '{}'", path);
  ADEPT_CHECK(fs::is_regular_file(path, ec), IOError, "imread: '{}' is not a regular file", path);
  std::ifstream f(path, std::ios::binary);
  ADEPT_CHECK(f.good(), IOError, "imread: cannot open '{}' for reading", path);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  ADEPT_CHECK(!f.bad(), IOError, "imread: error while reading '{}'", path);
  ADEPT_CHECK(!bytes.empty(), IOError, "imread: '{}' is empty", path);
  return detail::decode_image(bytes.data(), bytes.size(), path);
}

void imwrite(const std::string& path, const Tensor& image) {
  detail::check_image(image, "imwrite");
  detail::write_image(path, {image.data_ptr<uint8_t>(), image.size(0), image.size(1), image.size(1) * 3});
}

LabeledImage resize_long_side(const LabeledImage& in, int imgsz) {
  detail::check_labeled(in, "resize_long_side");
  ADEPT_CHECK(imgsz > 0, ValueError, "resize_long_side: imgsz must be positive, got {}", imgsz);
  const auto h0 = static_cast<int>(in.image.size(0)), w0 = static_cast<int>(in.image.size(1));
  const double r = static_cast<double>(imgsz) / std::max(h0, w0);
  if (r == 1) return detail::make_labeled(in.image.clone(), detail::read_boxes(in));
  // Ultralytics' load_image: ceil of the scaled sides, capped at imgsz.
  const int w = std::min(static_cast<int>(std::ceil(w0 * r)), imgsz);
  const int h = std::min(static_cast<int>(std::ceil(h0 * r)), imgsz);
  cv::Mat out;
  cv::resize(detail::as_mat(in.image), out, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
  std::vector<detail::Box> boxes = detail::read_boxes(in);
  const auto sx = static_cast<float>(w) / w0, sy = static_cast<float>(h) / h0;
  for (detail::Box& b : boxes) b.x1 *= sx, b.x2 *= sx, b.y1 *= sy, b.y2 *= sy;
  return detail::make_labeled(detail::from_mat(out), std::move(boxes));
}

}  // namespace adept::vision
