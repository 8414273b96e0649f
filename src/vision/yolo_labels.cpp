// The YOLO dataset layout: listing images, the images/ -> labels/ rule, parsing label files.
#include "vision/yolo_labels.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "adept/errors.h"

namespace adept::vision::detail {

namespace fs = std::filesystem;

std::string add_box(std::vector<BoxLabel>& boxes, double cls, double cx, double cy, double w, double h, int64_t nc) {
  if (!std::isfinite(cls) || cls != std::floor(cls)) return fmt::format("class {} is not an integer", cls);
  if (cls < 0 || cls >= static_cast<double>(nc)) return fmt::format("class {} outside [0, {})", cls, nc);
  for (double v : {cx, cy, w, h})
    if (!std::isfinite(v) || v < -kLabelTolerance || v > 1 + kLabelTolerance)
      return fmt::format("coordinate {} outside [0, 1]", v);
  if (w <= 0 || h <= 0) return fmt::format("box size {} x {} is not positive", w, h);
  const double x1 = std::max(cx - w / 2, 0.0), x2 = std::min(cx + w / 2, 1.0);
  const double y1 = std::max(cy - h / 2, 0.0), y2 = std::min(cy + h / 2, 1.0);
  if (x2 <= x1 || y2 <= y1) return "box lies outside the image";
  boxes.push_back({static_cast<int64_t>(cls), static_cast<float>((x1 + x2) / 2), static_cast<float>((y1 + y2) / 2),
                   static_cast<float>(x2 - x1), static_cast<float>(y2 - y1)});
  return "";
}

void remove_duplicates(ParsedLabels& labels, const std::string& file) {
  std::set<std::tuple<int64_t, float, float, float, float>> seen;
  std::vector<BoxLabel> kept;
  for (const BoxLabel& b : labels.boxes)
    if (seen.insert({b.cls, b.cx, b.cy, b.w, b.h}).second) kept.push_back(b);
  const auto removed = static_cast<int64_t>(labels.boxes.size() - kept.size());
  if (removed == 0) return;
  labels.boxes = std::move(kept);
  labels.duplicates += removed;
  labels.warnings.push_back(fmt::format("{}: {} duplicate label rows removed", file, removed));
}

namespace {
bool parse_number(std::string_view s, double& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}
}  // namespace

ParsedLabels parse_yolo_labels(const std::string& label_file, int64_t nc) {
  ParsedLabels out;
  std::error_code ec;
  if (!fs::exists(label_file, ec)) return out;
  std::ifstream in(label_file);
  ADEPT_CHECK(in.good(), IOError, "label file '{}' cannot be read", label_file);
  std::string line;
  for (int64_t lineno = 1; std::getline(in, line); ++lineno) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string tok; fields >> tok;) f.push_back(tok);
    if (f.empty()) continue;
    std::string why;
    double v[5];
    if (f.size() != 5) {
      why = fmt::format("{} fields, expected 5 (cls cx cy w h)", f.size());
    } else {
      for (int k = 0; k < 5 && why.empty(); ++k)
        if (!parse_number(f[k], v[k])) why = fmt::format("'{}' is not a number", f[k]);
      if (why.empty()) why = add_box(out.boxes, v[0], v[1], v[2], v[3], v[4], nc);
    }
    if (!why.empty()) {
      ++out.bad_lines;
      out.warnings.push_back(fmt::format("{}:{}: {}; line skipped: '{}'", label_file, lineno, why, line));
    }
  }
  ADEPT_CHECK(!in.bad(), IOError, "label file '{}': read error", label_file);
  remove_duplicates(out, label_file);
  return out;
}

std::string img2label_path(const std::string& im_file) {
  const std::string sa = "/images/", sb = "/labels/";
  std::string p = im_file;
  const size_t at = p.rfind(sa);
  if (at != std::string::npos) p.replace(at, sa.size(), sb);
  return fs::path(p).replace_extension(".txt").string();
}

bool is_image_file(const std::string& path) {
  static const std::set<std::string> kFormats = {".bmp", ".jpeg", ".jpg", ".png", ".tif", ".tiff", ".webp"};
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return kFormats.count(e) > 0;
}

std::vector<std::string> list_images(const SplitSource& src) {
  std::vector<std::string> files;
  std::error_code ec;
  switch (src.kind) {
    case SplitSource::Kind::ImageDir: {
      ADEPT_CHECK(fs::is_directory(src.path, ec), IOError, "image folder '{}' does not exist", src.path);
      for (auto it = fs::recursive_directory_iterator(src.path, fs::directory_options::follow_directory_symlink);
           it != fs::recursive_directory_iterator(); ++it)
        if (it->is_regular_file() && is_image_file(it->path().string())) files.push_back(it->path().string());
      break;
    }
    case SplitSource::Kind::ImageList: {
      std::ifstream in(src.path);
      ADEPT_CHECK(in.good(), IOError, "image list '{}' does not exist or cannot be read", src.path);
      const fs::path base = fs::path(src.path).parent_path();
      for (std::string line; std::getline(in, line);) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos) continue;
        fs::path p(line.substr(start));
        if (!p.is_absolute()) p = base / p;
        if (is_image_file(p.string())) files.push_back(p.lexically_normal().string());
      }
      break;
    }
    case SplitSource::Kind::ImageFile:
      files.push_back(src.path);
      break;
    case SplitSource::Kind::CocoJson:
      throw ValueError(fmt::format("dataset: '{}' is a COCO JSON, not an image source", src.path));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace adept::vision::detail
