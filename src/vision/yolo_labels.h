// Internal: the YOLO dataset layout (image lists, images/ -> labels/ paths) and label parsing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "adept/vision/dataset_config.h"
#include "adept/vision/labels.h"

namespace adept::vision::detail {

/// How far a normalised coordinate may lie outside [0, 1] before the row is rejected (rows
/// inside the tolerance are clipped to the image).
inline constexpr double kLabelTolerance = 0.01;

/// The boxes of one image plus what was rejected.
struct ParsedLabels {
  std::vector<BoxLabel> boxes;
  std::vector<std::string> warnings;  ///< one per rejected line / duplicate group, naming the file
  int64_t bad_lines = 0;
  int64_t duplicates = 0;
};

/// Validates one box (class id, normalised cx, cy, w, h) against `nc` classes: the class must be
/// an integer in [0, nc); coordinates within [-tol, 1 + tol]; w, h > 0. On success appends the
/// box, clipped to [0, 1], to `boxes` and returns ""; otherwise returns the reason.
std::string add_box(std::vector<BoxLabel>& boxes, double cls, double cx, double cy, double w, double h,
                    int64_t nc);

/// Removes exact duplicate rows (keeping the first), counting them with one warning for `file`
/// (as Ultralytics' verify_image_label).
void remove_duplicates(ParsedLabels& labels, const std::string& file);

/// Parses a YOLO label file (`cls cx cy w h` a line, normalised). A missing or empty file gives no
/// rows (a background image). Malformed lines (field count, non-numbers, class outside [0, nc),
/// coordinates outside [0, 1] beyond kLabelTolerance, w or h <= 0) are skipped, each with one
/// warning naming the file and line. Duplicate rows are removed. IOError when the file exists but
/// cannot be read.
ParsedLabels parse_yolo_labels(const std::string& label_file, int64_t nc);

/// Ultralytics' img2label_paths: the last `/images/` of the path becomes `/labels/` and the
/// extension `.txt` (no `/images/`: the .txt beside the image).
std::string img2label_path(const std::string& im_file);

/// True when the extension (case-insensitive) is one of the image formats the loader reads:
/// bmp, jpeg, jpg, png, tif, tiff, webp.
bool is_image_file(const std::string& path);

/// The image files of a non-COCO source, sorted: a folder searched recursively, a .txt list
/// (relative paths resolved against the list's folder, non-image entries ignored), or one image.
/// IOError naming the path when it does not exist or cannot be read.
std::vector<std::string> list_images(const SplitSource& src);

}  // namespace adept::vision::detail
