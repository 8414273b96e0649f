// Internal: the JSON cache of a scanned split, keyed by the (file, size, mtime) of the images and
// label files it was built from, written atomically beside the labels or in the user cache dir.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "adept/vision/labels.h"

namespace adept::vision::detail {

/// Size and modification time of a file (size -1 when it does not exist).
struct FileStamp {
  std::string file;
  int64_t size = -1;
  int64_t mtime_ns = 0;
};
FileStamp stamp_file(const std::string& file);

/// A 16-hex-digit FNV-1a hash of the stamps, the class count and a format version: two scans
/// have the same key exactly when they read the same files in the same state.
std::string cache_key(const std::vector<FileStamp>& stamps, int64_t nc);

/// A scan as stored: the usable images with their labels, and the counts and warnings of the
/// skipped items (images, backgrounds, boxes, corrupt, bad_lines, duplicates, warnings).
struct CachedScan {
  std::vector<ImageLabels> images;
  ScanSummary summary;
};

/// The cache if `cache_file` exists, parses and carries `key`; nullopt otherwise (a stale,
/// foreign or damaged cache is simply not used).
std::optional<CachedScan> read_label_cache(const std::string& cache_file, const std::string& key);

/// Writes the cache atomically (io::AtomicFile); IOError when the folder is not writable.
void write_label_cache(const std::string& cache_file, const std::string& key, const CachedScan& scan);

/// The fallback location of the cache whose preferred location is `primary`:
/// ($XDG_CACHE_HOME or ~/.cache)/adept/labels/<hash of primary>.json.
std::string user_cache_file(const std::string& primary);

}  // namespace adept::vision::detail
