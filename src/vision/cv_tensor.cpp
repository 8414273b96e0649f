// Zero-copy cv::Mat views of image tensors, argument checks and the shared box bookkeeping.
#include "vision/cv_tensor.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "adept/ops/creation.h"
#include "ops/helpers.h"

namespace adept::vision::detail {

void check_image(const Tensor& image, const char* fn) {
  ADEPT_CHECK(image.defined(), ValueError, "{}: image is an undefined tensor", fn);
  ADEPT_CHECK(image.dim() == 3 && image.size(2) == 3 && image.size(0) > 0 && image.size(1) > 0,
              ShapeError, "{}: expected an image of shape (H, W, 3) with H, W > 0, got {}", fn,
              shape_str(image.sizes()));
  ADEPT_CHECK(image.dtype() == kUInt8, DtypeError, "{}: expected a uint8 image, got {}", fn,
              dtype_name(image.dtype()));
  ADEPT_CHECK(image.device().is_cpu(), DeviceError, "{}: expected a CPU image, got one on {}", fn,
              image.device().str());
  ADEPT_CHECK(image.is_contiguous(), ValueError,
              "{}: expected a contiguous image, got shape {} with strides {}", fn,
              shape_str(image.sizes()), shape_str(image.strides()));
}

void check_labeled(const LabeledImage& in, const char* fn) {
  check_image(in.image, fn);
  ADEPT_CHECK(in.boxes.defined() && in.cls.defined(), ValueError,
              "{}: boxes and cls must be defined tensors (use (0, 4) and (0,) for no boxes)", fn);
  ADEPT_CHECK(in.boxes.dim() == 2 && in.boxes.size(1) == 4, ShapeError,
              "{}: expected boxes of shape (n, 4), got {}", fn, shape_str(in.boxes.sizes()));
  ADEPT_CHECK(in.cls.dim() == 1 && in.cls.size(0) == in.boxes.size(0), ShapeError,
              "{}: expected cls of shape ({},) to match boxes {}, got {}", fn, in.boxes.size(0),
              shape_str(in.boxes.sizes()), shape_str(in.cls.sizes()));
  ADEPT_CHECK(in.boxes.dtype() == kFloat32 && in.cls.dtype() == kFloat32, DtypeError,
              "{}: expected float32 boxes and cls, got {} and {}", fn,
              dtype_name(in.boxes.dtype()), dtype_name(in.cls.dtype()));
  ADEPT_CHECK(in.boxes.device().is_cpu() && in.cls.device().is_cpu(), DeviceError,
              "{}: expected boxes and cls on the CPU, got {} and {}", fn, in.boxes.device().str(),
              in.cls.device().str());
}

void check_options(const AugmentOptions& opt, const char* fn) {
  const std::pair<const char*, double> ranges[] = {
      {"hsv_h", opt.hsv_h},   {"hsv_s", opt.hsv_s}, {"hsv_v", opt.hsv_v},
      {"degrees", opt.degrees}, {"translate", opt.translate}, {"scale", opt.scale},
      {"shear", opt.shear},   {"perspective", opt.perspective}};
  for (const auto& [name, v] : ranges)
    ADEPT_CHECK(std::isfinite(v) && v >= 0, ValueError, "{}: {} must be finite and >= 0, got {}", fn,
                name, v);
  ADEPT_CHECK(opt.scale < 1, ValueError, "{}: scale must be < 1 (s ~ U(1 - scale, 1 + scale)), got {}",
              fn, opt.scale);
  const std::pair<const char*, double> probs[] = {
      {"flipud", opt.flipud}, {"fliplr", opt.fliplr}, {"mosaic", opt.mosaic}};
  for (const auto& [name, p] : probs)
    ADEPT_CHECK(p >= 0 && p <= 1, ValueError, "{}: probability {} must be in [0, 1], got {}", fn, name, p);
}

double uniform(Rng& rng, double lo, double hi) {
  return lo + (hi - lo) * std::generate_canonical<double, 53>(rng);
}

cv::Mat as_mat(const Tensor& image) {
  return cv::Mat(static_cast<int>(image.size(0)), static_cast<int>(image.size(1)), CV_8UC3,
                 image.data_ptr());
}

Tensor from_mat(const cv::Mat& m) {
  ADEPT_CHECK(m.type() == CV_8UC3 && m.isContinuous() && !m.empty(), ValueError,
              "from_mat: expected a non-empty continuous 8-bit 3-channel image");
  auto impl = std::make_shared<TensorImpl>();
  const int64_t h = m.rows, w = m.cols;
  auto* keep = new cv::Mat(m);  // shares the buffer's refcount
  impl->storage = Storage::wrap(m.data, static_cast<size_t>(h * w * 3), kCPU,
                                [keep](void*) { delete keep; });
  impl->sizes = {h, w, 3};
  impl->strides = {w * 3, 3, 1};
  impl->dtype = kUInt8;
  return Tensor(std::move(impl));
}

std::vector<Box> read_boxes(const LabeledImage& in) {
  const Tensor b = in.boxes.contiguous(), c = in.cls.contiguous();
  const int64_t n = b.size(0);
  std::vector<Box> out(static_cast<size_t>(n));
  if (n == 0) return out;
  const float* pb = b.data_ptr<float>();
  const float* pc = c.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) out[i] = {pb[4 * i], pb[4 * i + 1], pb[4 * i + 2], pb[4 * i + 3], pc[i]};
  return out;
}

LabeledImage make_labeled(Tensor image, std::vector<Box> boxes) {
  const auto w = static_cast<float>(image.size(1)), h = static_cast<float>(image.size(0));
  for (Box& b : boxes) {
    b.x1 = std::clamp(b.x1, 0.f, w), b.x2 = std::clamp(b.x2, 0.f, w);
    b.y1 = std::clamp(b.y1, 0.f, h), b.y2 = std::clamp(b.y2, 0.f, h);
  }
  // Not `<= 0`: NaN coordinates must go too.
  std::erase_if(boxes, [](const Box& b) { return !(b.width() > 0 && b.height() > 0); });
  const auto n = static_cast<int64_t>(boxes.size());
  LabeledImage out{std::move(image), empty({n, 4}, kFloat32), empty({n}, kFloat32)};
  if (n == 0) return out;
  float* pb = out.boxes.data_ptr<float>();
  float* pc = out.cls.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) {
    const Box& b = boxes[i];
    pb[4 * i] = b.x1, pb[4 * i + 1] = b.y1, pb[4 * i + 2] = b.x2, pb[4 * i + 3] = b.y2;
    pc[i] = b.cls;
  }
  return out;
}

}  // namespace adept::vision::detail
