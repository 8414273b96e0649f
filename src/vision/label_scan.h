// Internal: turning a split's sources into checked, labelled images (YOLO txt or COCO JSON),
// through the label cache; logs one warning per skipped item and one summary line.
#pragma once
#include <string>
#include <vector>

#include "adept/vision/dataset_config.h"
#include "adept/vision/labels.h"

namespace adept::vision::detail {

struct SplitScan {
  std::vector<ImageLabels> images;  ///< usable images in source order (each source sorted by path)
  ScanSummary summary;
};

/// Scans the images and labels of `sources` for a dataset of `nc` classes. Every image is decoded
/// once (corrupt, truncated JPEG, smaller than 10 px -> skipped); YOLO label files are parsed
/// (parse_yolo_labels), COCO JSONs converted (read_coco_json). With the files unchanged since a
/// previous scan, the cache is read instead (summary.from_cache). The cache lives at
/// `<labels folder>.adept.cache` (YOLO; the folder of the first image's label file) or
/// `<json without extension>.adept.cache` (COCO); where that folder is not writable (or grants
/// write permission to nobody, which counts even for root), at user_cache_file() of that path.
/// `what` names the split in the log ("coco128 train"). IOError when a source does not exist or
/// no image is found; ValueError when a COCO JSON's categories disagree with `nc`.
SplitScan scan_split(const std::vector<SplitSource>& sources, int64_t nc, const std::string& what);

/// Decodes `file` to check it and fills (height, width); returns "" when usable, else the reason.
std::string check_image_file(const std::string& file, int64_t& height, int64_t& width);

}  // namespace adept::vision::detail
