// resolve_sources: the image files of a predict `source` (include/adept/models/yolo/predictor.h).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "adept/errors.h"
#include "adept/models/yolo/predictor.h"
#include "vision/yolo_labels.h"

namespace adept::models::yolo {

namespace {

namespace fs = std::filesystem;

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

bool is_list_file(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e == ".txt";
}

// The images of a folder, sorted by name, not recursive.
void add_folder(const fs::path& dir, std::vector<std::string>& out) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && vision::detail::is_image_file(it->path().string()))
      files.push_back(it->path().string());
  ADEPT_CHECK(!ec, IOError, "predict source: cannot list folder '{}': {}", dir.string(), ec.message());
  std::sort(files.begin(), files.end());
  out.insert(out.end(), files.begin(), files.end());
}

// One entry: an image file, a folder or (unless inside a list) a .txt list. `list` names the list
// the entry came from ("" at the top level), for messages.
void add_entry(const fs::path& p, const std::string& list, std::vector<std::string>& out) {
  const std::string from = list.empty() ? "" : fmt::format(" (listed in '{}')", list);
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  ADEPT_CHECK(fs::exists(st), IOError, "predict source '{}'{} does not exist", p.string(), from);
  if (fs::is_directory(st)) return add_folder(p, out);
  ADEPT_CHECK(fs::is_regular_file(st), IOError, "predict source '{}'{} is not a file or folder", p.string(), from);
  if (!is_list_file(p)) return out.push_back(p.string());
  ADEPT_CHECK(list.empty(), ValueError, "predict source: '{}'{} is a list; lists cannot name other lists",
              p.string(), from);
  std::ifstream in(p);
  ADEPT_CHECK(in.good(), IOError, "predict source: cannot read the image list '{}'", p.string());
  const fs::path base = p.parent_path();
  for (std::string line; std::getline(in, line);) {
    const std::string entry = trim(line);
    if (entry.empty()) continue;
    const fs::path e(entry);
    add_entry((e.is_absolute() ? e : base / e).lexically_normal(), p.string(), out);
  }
  ADEPT_CHECK(!in.bad(), IOError, "predict source: error while reading the image list '{}'", p.string());
}

}  // namespace

std::vector<std::string> resolve_sources(const std::string& source) {
  const std::string whole = trim(source);
  ADEPT_CHECK(!whole.empty(), ValueError, "predict: source is empty; give an image, a folder, a .txt list "
                                          "or comma-separated paths");
  std::vector<std::string> entries;
  std::error_code ec;
  if (whole.find(',') == std::string::npos || fs::exists(whole, ec)) {
    entries.push_back(whole);
  } else {
    for (size_t start = 0; start <= whole.size();) {
      const size_t comma = std::min(whole.find(',', start), whole.size());
      const std::string e = trim(whole.substr(start, comma - start));
      if (!e.empty()) entries.push_back(e);
      start = comma + 1;
    }
  }
  std::vector<std::string> out;
  for (const std::string& e : entries) add_entry(fs::path(e), "", out);
  ADEPT_CHECK(!out.empty(), ValueError,
              "predict: no images found in source '{}' (image extensions: bmp, jpeg, jpg, png, tif, tiff, webp)",
              source);
  return out;
}

}  // namespace adept::models::yolo
