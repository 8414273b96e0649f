// The labels of a detection dataset as the loader keeps them: per image, its original size and its
// boxes (class id + normalised centre and size), and the summary of the scan that produced them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace adept::vision {

/// One labelled box: class id in [0, nc) and cx, cy, w, h normalised by the image's width/height.
struct BoxLabel {
  int64_t cls = 0;
  float cx = 0, cy = 0, w = 0, h = 0;
  friend bool operator==(const BoxLabel&, const BoxLabel&) = default;
};

/// One image of a split: its file, original size (pixels) and boxes (none: a background image).
struct ImageLabels {
  std::string im_file;
  int64_t height = 0, width = 0;
  std::vector<BoxLabel> boxes;
};

/// What a split's scan found: counts, the warnings it logged, and whether the label cache served it.
struct ScanSummary {
  int64_t images = 0;       ///< usable images (corrupt ones excluded)
  int64_t backgrounds = 0;  ///< usable images without boxes
  int64_t boxes = 0;
  int64_t corrupt = 0;      ///< images skipped: missing, unreadable or not decodable
  int64_t bad_lines = 0;    ///< label lines / COCO annotations skipped
  int64_t duplicates = 0;   ///< duplicate label rows removed
  std::vector<std::string> warnings;  ///< one per skipped item, each naming the file (and line)
  bool from_cache = false;
  std::string cache_file;   ///< where the cache was read or written ("" when it could not be written)
  double seconds = 0;       ///< wall time of the scan (or of reading the cache)

  /// "N images, M backgrounds, K corrupt images skipped, L bad label lines skipped" (+ details).
  std::string str() const;
};

}  // namespace adept::vision
