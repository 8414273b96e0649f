// DetectionDataset: the images and boxes of one split of a detection dataset (YOLO txt or COCO
// JSON labels) as a map-style data::Dataset, with Ultralytics' YOLO training augmentation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "adept/data/dataset.h"
#include "adept/vision/dataset_config.h"
#include "adept/vision/labels.h"
#include "adept/vision/transforms.h"

namespace adept::vision {

/// Options with Ultralytics' names (default.yaml): image size, training augmentation and stride.
struct DetectionDatasetOptions {
  int imgsz = 640;       ///< output images are imgsz x imgsz (rounded up to a multiple of stride)
  bool augment = false;  ///< true for training (mosaic, affine, HSV, flips), false for validation
  AugmentOptions hyp;    ///< augmentation hyper-parameters (used when augment)
  int stride = 32;       ///< the model's largest stride
  double fraction = 1.0; ///< use only the first round(fraction * n) images of the split (0 < fraction <= 1)
};

/// One split of a detection dataset. Construction scans the split (see ScanSummary): corrupt
/// images and malformed label lines are skipped with a warning each, a label cache avoids
/// re-parsing unchanged files.
///
/// get(i) returns a Sample:
///   "img":       (3, imgsz, imgsz) uint8, RGB, contiguous
///   "cls":       (n, 1) float32 class ids
///   "bboxes":    (n, 4) float32 cx, cy, w, h normalised by the output image size, in [0, 1]
///   "ori_shape": (2,) int64 (h, w) of the original image
///   "ratio_pad": (3,) float32 (gain, pad_x, pad_y): output = original * gain + pad (validation);
///                (1, 0, 0) when augmented (the affine transform is random)
///   "index":     () int64, i
///
/// With augment (Ultralytics' v8_transforms; ../shared/docs/yolo11.md section 5.5), drawing every
/// random number from an Rng seeded by data::sample_seed() (so the result depends only on the
/// loader's (seed, epoch, index), not on the number of workers):
///   load (long side = imgsz) -> with probability hyp.mosaic: mosaic4 of i and 3 indices drawn
///   uniformly -> random_affine(border = -imgsz/2); otherwise letterbox to imgsz ->
///   random_affine(border = 0) -> hsv_jitter -> flip_ud (p = flipud) -> flip_lr (p = fliplr).
/// Without augment: load (long side = imgsz) -> letterbox to imgsz with scaleup off.
class DetectionDataset : public data::Dataset {
 public:
  /// IOError / ValueError as load_dataset_config and the scan raise them; ValueError for a
  /// split the config lacks or imgsz / stride <= 0.
  DetectionDataset(const DatasetConfig& config, const std::string& split, DetectionDatasetOptions options = {});
  /// Loads the config from a YAML file or dataset folder first (load_dataset_config).
  DetectionDataset(const std::string& data, const std::string& split, DetectionDatasetOptions options = {});

  int64_t size() const override { return static_cast<int64_t>(labels_.size()); }
  /// IndexError when index is outside [0, size()); IOError when the image cannot be read now.
  data::Sample get(int64_t index) override;

  /// Turns mosaic off for the remaining epochs (Ultralytics' close_mosaic: then each image is
  /// letterboxed and randomly affined). Same as set_mosaic(false).
  void close_mosaic() { set_mosaic(false); }
  /// Turns mosaic on (probability hyp.mosaic) or off.
  void set_mosaic(bool on) { mosaic_ = on; }
  bool mosaic() const { return mosaic_; }

  const std::vector<std::string>& im_files() const { return im_files_; }
  /// The labels of each image (normalised to its original size), in the order of im_files().
  const std::vector<ImageLabels>& labels() const { return labels_; }
  const std::vector<std::string>& names() const { return config_.names; }
  const DatasetConfig& config() const { return config_; }
  const std::string& split() const { return split_; }
  const DetectionDatasetOptions& options() const { return options_; }
  const ScanSummary& summary() const { return summary_; }

 private:
  /// Image i resized to long side imgsz with its boxes in pixels (x1, y1, x2, y2).
  LabeledImage load(int64_t i) const;

  DatasetConfig config_;
  std::string split_;
  DetectionDatasetOptions options_;
  std::vector<ImageLabels> labels_;
  std::vector<std::string> im_files_;
  ScanSummary summary_;
  bool mosaic_ = true;
};

}  // namespace adept::vision
