// DetectionDataset: scan once, then per sample decode, augment (or letterbox) and format.
#include "adept/vision/detection_dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "adept/ops/creation.h"
#include "vision/cv_tensor.h"
#include "vision/label_scan.h"

namespace adept::vision {

namespace {

// (H, W, 3) BGR -> (3, H, W) RGB, and pixel boxes (x1, y1, x2, y2) -> clipped, normalised
// (cx, cy, w, h): Ultralytics' Format transform.
data::Sample format_sample(const LabeledImage& li, int64_t index, int64_t ori_h, int64_t ori_w, double gain,
                           double pad_x, double pad_y) {
  const Tensor src = li.image.contiguous();
  const int64_t h = src.size(0), w = src.size(1);
  Tensor img = empty({3, h, w}, kUInt8);
  const uint8_t* s = src.data_ptr<uint8_t>();
  uint8_t* d = img.data_ptr<uint8_t>();
  const int64_t plane = h * w;
  for (int64_t p = 0; p < plane; ++p) {
    d[p] = s[3 * p + 2];
    d[plane + p] = s[3 * p + 1];
    d[2 * plane + p] = s[3 * p];
  }

  const int64_t n = li.boxes.size(0);
  const Tensor boxes = li.boxes.contiguous(), cls_in = li.cls.contiguous();
  Tensor cls = empty({n, 1}, kFloat32), bboxes = empty({n, 4}, kFloat32);
  const float* b = boxes.data_ptr<float>();
  float* o = bboxes.data_ptr<float>();
  const auto fw = static_cast<float>(w), fh = static_cast<float>(h);
  for (int64_t k = 0; k < n; ++k) {
    const float x1 = std::clamp(b[4 * k], 0.f, fw), x2 = std::clamp(b[4 * k + 2], 0.f, fw);
    const float y1 = std::clamp(b[4 * k + 1], 0.f, fh), y2 = std::clamp(b[4 * k + 3], 0.f, fh);
    o[4 * k] = (x1 + x2) / 2 / fw;
    o[4 * k + 1] = (y1 + y2) / 2 / fh;
    o[4 * k + 2] = (x2 - x1) / fw;
    o[4 * k + 3] = (y2 - y1) / fh;
    cls.data_ptr<float>()[k] = cls_in.data_ptr<float>()[k];
  }
  return data::Sample{{"img", img},
                      {"cls", cls},
                      {"bboxes", bboxes},
                      {"ori_shape", tensor(std::vector<int64_t>{ori_h, ori_w})},
                      {"ratio_pad", tensor(std::vector<float>{static_cast<float>(gain), static_cast<float>(pad_x),
                                                              static_cast<float>(pad_y)})},
                      {"index", scalar_tensor(index, kInt64)}};
}

}  // namespace

DetectionDataset::DetectionDataset(const DatasetConfig& config, const std::string& split,
                                   DetectionDatasetOptions options)
    : config_(config), split_(split), options_(options) {
  ADEPT_CHECK(options_.imgsz > 0 && options_.stride > 0, ValueError,
              "DetectionDataset: imgsz ({}) and stride ({}) must be positive", options_.imgsz, options_.stride);
  if (options_.imgsz % options_.stride != 0) {
    const int rounded = (options_.imgsz + options_.stride - 1) / options_.stride * options_.stride;
    spdlog::warn("DetectionDataset: imgsz={} is not a multiple of stride {}; using {}", options_.imgsz, options_.stride,
                 rounded);
    options_.imgsz = rounded;
  }
  ADEPT_CHECK(options_.fraction > 0 && options_.fraction <= 1, ValueError,
              "DetectionDataset: fraction must be in (0, 1], got {}", options_.fraction);
  // Augmentation options are checked here, before the labels are scanned, rather than in the first
  // worker that draws a sample.
  if (options_.augment) detail::check_options(options_.hyp, "DetectionDataset");
  const std::string what = fmt::format("{} {}", std::filesystem::path(config_.source).filename().string(), split_);
  detail::SplitScan scan = detail::scan_split(config_.split(split_), config_.nc(), what);
  labels_ = std::move(scan.images);
  summary_ = std::move(scan.summary);
  // Ultralytics' BaseDataset: the first round(n * fraction) images (Python's round: half to even).
  labels_.resize(static_cast<size_t>(std::nearbyint(static_cast<double>(labels_.size()) * options_.fraction)));
  im_files_.reserve(labels_.size());
  for (const ImageLabels& l : labels_) im_files_.push_back(l.im_file);
}

DetectionDataset::DetectionDataset(const std::string& data, const std::string& split, DetectionDatasetOptions options)
    : DetectionDataset(load_dataset_config(data), split, options) {}

LabeledImage DetectionDataset::load(int64_t i) const {
  const ImageLabels& l = labels_[static_cast<size_t>(i)];
  Tensor image = imread(l.im_file);
  const auto h0 = static_cast<float>(image.size(0)), w0 = static_cast<float>(image.size(1));
  const auto n = static_cast<int64_t>(l.boxes.size());
  Tensor boxes = empty({n, 4}, kFloat32), cls = empty({n}, kFloat32);
  float* b = boxes.data_ptr<float>();
  for (int64_t k = 0; k < n; ++k) {
    const BoxLabel& x = l.boxes[static_cast<size_t>(k)];
    b[4 * k] = (x.cx - x.w / 2) * w0;
    b[4 * k + 1] = (x.cy - x.h / 2) * h0;
    b[4 * k + 2] = (x.cx + x.w / 2) * w0;
    b[4 * k + 3] = (x.cy + x.h / 2) * h0;
    cls.data_ptr<float>()[k] = static_cast<float>(x.cls);
  }
  return resize_long_side(LabeledImage{image, boxes, cls}, options_.imgsz);
}

data::Sample DetectionDataset::get(int64_t index) {
  ADEPT_CHECK(index >= 0 && index < size(), IndexError, "DetectionDataset::get: index {} out of range [0, {})", index,
              size());
  const ImageLabels& l = labels_[static_cast<size_t>(index)];
  const int imgsz = options_.imgsz;
  if (!options_.augment) {
    const Letterboxed lb = letterbox(load(index), imgsz, imgsz, /*scaleup=*/false);
    const double gain = lb.gain * imgsz / static_cast<double>(std::max(l.height, l.width));
    return format_sample(lb.out, index, l.height, l.width, gain, lb.pad_x, lb.pad_y);
  }

  const AugmentOptions& hyp = options_.hyp;
  Rng rng(data::sample_seed());
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  LabeledImage li;
  if (mosaic_ && u01(rng) < hyp.mosaic) {
    // The 3 partners are drawn from this sample's generator, so they depend only on (seed, epoch,
    // index). Ultralytics instead picks them from a buffer of recently loaded images, which
    // depends on the loading order and hence on the number of workers.
    std::uniform_int_distribution<int64_t> pick(0, size() - 1);
    const std::array<LabeledImage, 4> four{load(index), load(pick(rng)), load(pick(rng)), load(pick(rng))};
    li = random_affine(mosaic4(four, imgsz, rng), hyp, -imgsz / 2, rng);
  } else {
    li = random_affine(letterbox(load(index), imgsz, imgsz).out, hyp, 0, rng);
  }
  hsv_jitter(li, hyp, rng);
  if (u01(rng) < hyp.flipud) li = flip_ud(li);
  if (u01(rng) < hyp.fliplr) li = flip_lr(li);
  return format_sample(li, index, l.height, l.width, 1.0, 0.0, 0.0);
}

}  // namespace adept::vision
