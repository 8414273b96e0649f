// Internal: reading COCO instances JSON files (annotations/instances_*.json) into YOLO labels.
#pragma once
#include <string>
#include <vector>

#include "vision/yolo_labels.h"

namespace adept::vision::detail {

/// The category names of a COCO JSON, ordered by category id (the class order of its labels).
std::vector<std::string> read_coco_category_names(const std::string& json_file);

/// One image of a COCO JSON with its boxes converted to YOLO rows.
struct CocoImage {
  std::string im_file;  ///< images_dir / file_name
  ParsedLabels labels;
};

/// The images of a COCO JSON and the rejected annotations that belong to no image.
struct CocoData {
  std::vector<CocoImage> images;
  std::vector<std::string> categories;  ///< names, class k = the k-th smallest category id
  ParsedLabels unattached;  ///< no rows; warnings and count of annotations with a bad image_id
};

/// Reads a COCO instances JSON: each entry of `images` becomes an image under `images_dir`;
/// its annotations' `bbox` [x, y, w, h] (pixels of the image's `width` x `height`) become
/// normalised (cx, cy, w, h); category ids map to 0 .. nc-1 in increasing id order; `iscrowd`
/// annotations are skipped; images without annotations are background. Invalid annotations
/// (unknown image or category, w or h <= 0, outside the image beyond the label tolerance) are
/// dropped with a warning naming the file and the annotation id, counted in `bad_lines` of the
/// image (or of `unattached`). Images are returned sorted by path. IOError / ValueError naming the file when it cannot be
/// read or is not a COCO JSON (missing `images` or `categories`; `annotations` may be absent).
CocoData read_coco_json(const std::string& json_file, const std::string& images_dir);

}  // namespace adept::vision::detail
