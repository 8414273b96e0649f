// Scanning a split: list images, stamp files, reuse the label cache or parse and check everything.
#include "vision/label_scan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <sys/stat.h>

#include <spdlog/spdlog.h>

#include "adept/errors.h"
#include "adept/vision/transforms.h"
#include "vision/coco_json.h"
#include "vision/label_cache.h"
#include "vision/yolo_labels.h"

namespace adept::vision {

std::string ScanSummary::str() const {
  return fmt::format(
      "{} images, {} backgrounds, {} corrupt images skipped, {} bad label lines skipped ({} boxes, {} duplicate "
      "rows removed; {} {}, {:.3f} s)",
      images, backgrounds, corrupt, bad_lines, boxes, duplicates, from_cache ? "labels from cache" : "labels cached in",
      cache_file.empty() ? "<not written>" : cache_file, seconds);
}

namespace detail {

namespace fs = std::filesystem;

namespace {

// One image to check, with its labels (parsed from `label_file`, or already converted from COCO).
struct Item {
  std::string im_file;
  std::optional<std::string> label_file;
  ParsedLabels labels;
  std::string corrupt;  // reason, "" when usable
  int64_t height = 0, width = 0;
};

bool is_jpeg(const std::string& file) {
  std::string e = fs::path(file).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e == ".jpg" || e == ".jpeg";
}

// A JPEG ends with the EOI marker (FF D9); inside entropy-coded data FF is never followed by D9,
// so its absence near the end means the file was cut short (libjpeg would pad the rest with grey).
bool jpeg_has_eoi(const std::string& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  const auto size = static_cast<int64_t>(in.tellg());
  const int64_t n = std::min<int64_t>(size, 1024);
  std::string tail(static_cast<size_t>(std::max<int64_t>(n, 0)), '\0');
  in.seekg(size - n);
  in.read(tail.data(), n);
  return in.good() && tail.find("\xff\xd9") != std::string::npos;
}

// Runs fn(i) for i in [0, n) on up to 8 short-lived threads (joined before returning).
template <class F> void parallel_for(size_t n, F fn) {
  const size_t threads = std::min<size_t>({n, 8, std::max(1u, std::thread::hardware_concurrency())});
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
}

// `items`: the images listed from `first` (only read for a YOLO source, which has at least one).
std::string primary_cache_file(const SplitSource& first, const std::vector<Item>& items, const std::string& what) {
  if (first.kind == SplitSource::Kind::CocoJson) return fs::path(first.path).replace_extension(".adept.cache").string();
  ADEPT_CHECK(!items.empty(), IOError, "{}: no images found in '{}'", what, first.path);
  const fs::path labels_dir = fs::path(img2label_path(items.front().im_file)).parent_path();
  return labels_dir.string() + ".adept.cache";
}

// A folder whose mode grants write permission to nobody is read-only by intent: root could still
// write there, but a dataset folder made read-only must not receive cache files.
bool writable_by_mode(const fs::path& dir) {
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && (st.st_mode & 0222) != 0;
}

// The cache is written beside the labels, else in the user cache folder; "" when neither works.
std::string write_cache(const std::string& primary, const std::string& key, const CachedScan& scan) {
  std::string why = "its folder is read-only";
  if (writable_by_mode(fs::path(primary).parent_path())) {
    try {
      write_label_cache(primary, key, scan);
      return primary;
    } catch (const IOError& e) {
      why = e.what();
    }
  }
  const std::string fallback = user_cache_file(primary);
  try {
    fs::create_directories(fs::path(fallback).parent_path());
    write_label_cache(fallback, key, scan);
    return fallback;
  } catch (const std::exception& e) {
    spdlog::warn("label cache not written to '{}' ({}) nor to '{}' ({})", primary, why, fallback, e.what());
    return "";
  }
}

}  // namespace

std::string check_image_file(const std::string& file, int64_t& height, int64_t& width) {
  try {
    if (is_jpeg(file) && fs::is_regular_file(file) && !jpeg_has_eoi(file))
      return fmt::format("'{}': truncated JPEG (no end-of-image marker)", file);
    const Tensor im = imread(file);
    height = im.size(0);
    width = im.size(1);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (height < 10 || width < 10) return fmt::format("'{}': image size {}x{} is under 10 pixels", file, width, height);
  return "";
}

namespace {

// Per source, its YOLO items (COCO ones come later, from the JSON), and the stamps of every file
// the scan reads: YOLO images + label files; COCO JSON + the images of its folder.
struct Listing {
  std::vector<std::vector<Item>> per_source;
  std::vector<FileStamp> stamps;
};

Listing list_sources(const std::vector<SplitSource>& sources, const std::string& what) {
  Listing l;
  l.per_source.resize(sources.size());
  for (size_t k = 0; k < sources.size(); ++k) {
    const SplitSource& src = sources[k];
    if (src.kind == SplitSource::Kind::CocoJson) {
      std::error_code ec;
      ADEPT_CHECK(fs::is_regular_file(src.path, ec), IOError, "{}: COCO JSON '{}' does not exist", what, src.path);
      ADEPT_CHECK(fs::is_directory(src.images_dir, ec), IOError, "{}: images folder '{}' of COCO JSON '{}' does not exist",
                  what, src.images_dir, src.path);
      l.stamps.push_back(stamp_file(src.path));
      for (const std::string& f : list_images({SplitSource::Kind::ImageDir, src.images_dir, ""}))
        l.stamps.push_back(stamp_file(f));
      continue;
    }
    for (std::string& f : list_images(src)) {
      Item it;
      it.label_file = img2label_path(f);
      l.stamps.push_back(stamp_file(f));
      l.stamps.push_back(stamp_file(*it.label_file));
      it.im_file = std::move(f);
      l.per_source[k].push_back(std::move(it));
    }
  }
  return l;
}

// The scan proper: COCO JSONs converted, then every image decoded and every label file parsed
// (in parallel), then the results gathered in source order.
CachedScan scan_files(const std::vector<SplitSource>& sources, Listing listing, int64_t nc, const std::string& what) {
  ParsedLabels unattached;
  for (size_t k = 0; k < sources.size(); ++k) {
    const SplitSource& src = sources[k];
    if (src.kind != SplitSource::Kind::CocoJson) continue;
    CocoData coco = read_coco_json(src.path, src.images_dir);
    ADEPT_CHECK(static_cast<int64_t>(coco.categories.size()) == nc, ValueError,
                "{}: COCO JSON '{}' has {} categories but the dataset names {} classes", what, src.path,
                coco.categories.size(), nc);
    unattached.bad_lines += coco.unattached.bad_lines;
    for (auto& w : coco.unattached.warnings) unattached.warnings.push_back(std::move(w));
    for (CocoImage& im : coco.images) {
      Item it;
      it.im_file = std::move(im.im_file);
      it.labels = std::move(im.labels);
      listing.per_source[k].push_back(std::move(it));
    }
  }
  std::vector<Item> items;
  for (auto& source_items : listing.per_source)
    for (Item& it : source_items) items.push_back(std::move(it));
  parallel_for(items.size(), [&](size_t i) {
    Item& it = items[i];
    it.corrupt = check_image_file(it.im_file, it.height, it.width);
    if (!it.label_file || !it.corrupt.empty()) return;
    try {
      it.labels = parse_yolo_labels(*it.label_file, nc);
    } catch (const IOError& e) {
      it.labels = ParsedLabels{};
      it.labels.bad_lines = 1;
      it.labels.warnings.push_back(e.what());
    }
  });

  CachedScan scan;
  ScanSummary& s = scan.summary;
  s.bad_lines = unattached.bad_lines;
  s.warnings = std::move(unattached.warnings);
  for (Item& it : items) {
    if (!it.corrupt.empty()) {
      ++s.corrupt;
      s.warnings.push_back("corrupt image skipped: " + it.corrupt);
      continue;
    }
    s.bad_lines += it.labels.bad_lines;
    s.duplicates += it.labels.duplicates;
    for (auto& w : it.labels.warnings) s.warnings.push_back(std::move(w));
    s.boxes += static_cast<int64_t>(it.labels.boxes.size());
    s.backgrounds += it.labels.boxes.empty();
    scan.images.push_back({std::move(it.im_file), it.height, it.width, std::move(it.labels.boxes)});
  }
  s.images = static_cast<int64_t>(scan.images.size());
  return scan;
}

}  // namespace

SplitScan scan_split(const std::vector<SplitSource>& sources, int64_t nc, const std::string& what) {
  const auto t0 = std::chrono::steady_clock::now();
  ADEPT_CHECK(!sources.empty(), ValueError, "{}: the split lists no source", what);
  Listing listing = list_sources(sources, what);
  const std::string key = cache_key(listing.stamps, nc);
  const std::string primary = primary_cache_file(sources.front(), listing.per_source.front(), what);

  std::string cache_file = primary;
  std::optional<CachedScan> scan = read_label_cache(primary, key);
  if (!scan) {
    cache_file = user_cache_file(primary);
    scan = read_label_cache(cache_file, key);
  }
  if (scan) {
    scan->summary.from_cache = true;
  } else {
    scan = scan_files(sources, std::move(listing), nc, what);
    cache_file = write_cache(primary, key, *scan);
  }
  SplitScan out{std::move(scan->images), std::move(scan->summary)};
  out.summary.cache_file = cache_file;
  out.summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const std::string& w : out.summary.warnings) spdlog::warn("{}", w);
  spdlog::info("{}: {}", what, out.summary.str());
  ADEPT_CHECK(!out.images.empty(), IOError, "{}: no usable images ({} corrupt)", what, out.summary.corrupt);
  return out;
}

}  // namespace detail
}  // namespace adept::vision
