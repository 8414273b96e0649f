// detection_collate: stack images, concatenate per-image boxes into (batch_idx, cls, cx, cy, w, h).
#include "adept/vision/detection_collate.h"

#include <cstring>

#include "adept/ops/creation.h"
#include "adept/ops/shape.h"

namespace adept::vision {

namespace {
std::string describe(const data::Sample& s, size_t pos) {
  if (s.contains("index") && s.at("index").numel() == 1)
    return fmt::format("sample {} (dataset index {})", pos, s.at("index").item<int64_t>());
  return fmt::format("sample {}", pos);
}

std::string shape_str(const Tensor& t) { return fmt::format("({})", fmt::join(t.sizes(), ", ")); }
}  // namespace

data::Batch detection_collate(const std::vector<data::Sample>& samples) {
  ADEPT_CHECK(!samples.empty(), ValueError, "detection_collate: got an empty list of samples");
  const Shape& img_shape = samples.front().at("img").sizes();
  std::vector<Tensor> imgs, ori, ratio, index, cls, bboxes;
  int64_t total = 0;
  for (size_t b = 0; b < samples.size(); ++b) {
    const data::Sample& s = samples[b];
    const Tensor& img = s.at("img");
    ADEPT_CHECK(img.dim() == 3 && img.sizes() == img_shape, ShapeError,
                "detection_collate: {} has an image of shape {}, but sample 0's is {}; all images of a batch must "
                "have one size (letterbox them to imgsz)",
                describe(s, b), shape_str(img), shape_str(samples.front().at("img")));
    const Tensor& bx = s.at("bboxes");
    ADEPT_CHECK(bx.dim() == 2 && bx.size(1) == 4, ShapeError, "detection_collate: {} has bboxes of shape {}, expected (n, 4)",
                describe(s, b), shape_str(bx));
    const Tensor& c = s.at("cls");
    ADEPT_CHECK(c.numel() == bx.size(0) && c.dim() >= 1 && c.size(0) == bx.size(0), ShapeError,
                "detection_collate: {} has cls of shape {} for {} boxes, expected ({}, 1)", describe(s, b),
                shape_str(c), bx.size(0), bx.size(0));
    imgs.push_back(img);
    ori.push_back(s.at("ori_shape"));
    ratio.push_back(s.at("ratio_pad"));
    index.push_back(s.at("index").reshape({1}));
    bboxes.push_back(bx.to(kCPU).to(kFloat32).contiguous());
    cls.push_back(c.to(kCPU).to(kFloat32).contiguous());
    total += bx.size(0);
  }

  Tensor targets = empty({total, 6}, kFloat32);
  float* t = targets.data_ptr<float>();
  for (size_t b = 0; b < samples.size(); ++b) {
    const float* box = bboxes[b].data_ptr<float>();
    const float* c = cls[b].data_ptr<float>();
    for (int64_t k = 0; k < bboxes[b].size(0); ++k, t += 6) {
      t[0] = static_cast<float>(b);
      t[1] = c[k];
      std::memcpy(t + 2, box + 4 * k, 4 * sizeof(float));
    }
  }
  return data::Batch{{"img", stack(imgs)},
                     {"targets", targets},
                     {"ori_shape", stack(ori)},
                     {"ratio_pad", stack(ratio)},
                     {"index", cat(index)}};
}

Tensor to_float_image(const Tensor& images) {
  ADEPT_CHECK(images.dtype() == kUInt8, DtypeError, "to_float_image: expected uint8 images, got {}",
              dtype_name(images.dtype()));
  return images.to(kFloat32) / 255.0;
}

}  // namespace adept::vision
