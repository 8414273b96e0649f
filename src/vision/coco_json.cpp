// COCO instances JSON -> YOLO rows (normalised cx, cy, w, h with contiguous class ids).
#include "vision/coco_json.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "adept/errors.h"

namespace adept::vision::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json parse_file(const std::string& file) {
  std::error_code ec;
  ADEPT_CHECK(fs::is_regular_file(file, ec), IOError, "COCO JSON '{}': no such file", file);
  std::ifstream in(file);
  ADEPT_CHECK(in.good(), IOError, "COCO JSON '{}': cannot be read", file);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw ValueError(fmt::format("COCO JSON '{}': malformed JSON: {}", file, e.what()));
  }
  ADEPT_CHECK(j.is_object(), ValueError, "COCO JSON '{}': expected an object with 'images' and 'categories'", file);
  for (const char* key : {"images", "categories"})
    ADEPT_CHECK(j.contains(key) && j[key].is_array(), ValueError, "COCO JSON '{}': missing key '{}' (a list)", file,
                key);
  return j;
}

// Category id -> (contiguous class, name), ids in increasing order.
std::map<int64_t, std::string> categories(const json& j, const std::string& file) {
  std::map<int64_t, std::string> by_id;
  try {
    for (const auto& c : j["categories"])
      if (!by_id.emplace(c.at("id").get<int64_t>(), c.at("name").get<std::string>()).second)
        throw ValueError(fmt::format("COCO JSON '{}': key 'categories': id {} repeated", file, c["id"].dump()));
  } catch (const json::exception& e) {
    throw ValueError(fmt::format("COCO JSON '{}': key 'categories': {}", file, e.what()));
  }
  ADEPT_CHECK(!by_id.empty(), ValueError, "COCO JSON '{}': key 'categories' is empty", file);
  return by_id;
}

}  // namespace

std::vector<std::string> read_coco_category_names(const std::string& json_file) {
  std::vector<std::string> names;
  for (auto& [id, name] : categories(parse_file(json_file), json_file)) names.push_back(name);
  return names;
}

CocoData read_coco_json(const std::string& json_file, const std::string& images_dir) {
  CocoData out;
  const json j = parse_file(json_file);
  std::unordered_map<int64_t, int64_t> class_of;
  for (const auto& [id, name] : categories(j, json_file)) {
    class_of.emplace(id, static_cast<int64_t>(class_of.size()));
    out.categories.push_back(name);
  }
  const auto nc = static_cast<int64_t>(class_of.size());

  struct Info { CocoImage image; double width, height; };
  std::vector<Info> images;
  std::unordered_map<int64_t, size_t> slot;
  try {
    for (const auto& im : j["images"]) {
      Info info;
      info.image.im_file = (fs::path(images_dir) / im.at("file_name").get<std::string>()).lexically_normal().string();
      info.width = im.at("width").get<double>();
      info.height = im.at("height").get<double>();
      ADEPT_CHECK(info.width > 0 && info.height > 0, ValueError, "COCO JSON '{}': image {} has size {} x {}", json_file,
                  im.at("id").dump(), info.width, info.height);
      ADEPT_CHECK(slot.emplace(im.at("id").get<int64_t>(), images.size()).second, ValueError,
                  "COCO JSON '{}': key 'images': id {} repeated", json_file, im.at("id").dump());
      images.push_back(std::move(info));
    }
  } catch (const json::exception& e) {
    throw ValueError(fmt::format("COCO JSON '{}': key 'images': {}", json_file, e.what()));
  }

  int64_t unknown_image = 0;
  if (j.contains("annotations")) {
    ADEPT_CHECK(j["annotations"].is_array(), ValueError, "COCO JSON '{}': key 'annotations' must be a list", json_file);
    for (const auto& a : j["annotations"]) {
      const std::string aid = a.contains("id") ? a["id"].dump() : "?";
      std::string why;
      Info* info = nullptr;
      try {
        if (a.value("iscrowd", 0) != 0) continue;
        auto s = slot.find(a.at("image_id").get<int64_t>());
        if (s == slot.end()) {
          ++unknown_image;  // no image to attach the warning to: reported once below
          continue;
        }
        info = &images[s->second];
        auto c = class_of.find(a.at("category_id").get<int64_t>());
        const auto& b = a.at("bbox");
        if (c == class_of.end()) {
          why = fmt::format("unknown category_id {}", a["category_id"].dump());
        } else if (!b.is_array() || b.size() != 4) {
          why = fmt::format("bbox {} is not [x, y, w, h]", b.dump());
        } else {
          const double x = b[0].get<double>(), y = b[1].get<double>(), w = b[2].get<double>(), h = b[3].get<double>();
          why = add_box(info->image.labels.boxes, static_cast<double>(c->second), (x + w / 2) / info->width,
                        (y + h / 2) / info->height, w / info->width, h / info->height, nc);
        }
      } catch (const json::exception& e) {
        why = e.what();
      }
      if (why.empty()) continue;
      ParsedLabels& target = info ? info->image.labels : out.unattached;
      ++target.bad_lines;
      target.warnings.push_back(fmt::format("{}: annotation {}{}: {}; skipped", json_file, aid,
                                            info ? " of " + info->image.im_file : "", why));
    }
  }
  if (unknown_image > 0) {
    out.unattached.bad_lines += unknown_image;
    out.unattached.warnings.push_back(
        fmt::format("{}: {} annotations refer to image ids not in 'images'; skipped", json_file, unknown_image));
  }

  out.images.reserve(images.size());
  for (Info& info : images) {
    remove_duplicates(info.image.labels, info.image.im_file);
    out.images.push_back(std::move(info.image));
  }
  std::stable_sort(out.images.begin(), out.images.end(),
                   [](const CocoImage& a, const CocoImage& b) { return a.im_file < b.im_file; });
  return out;
}

}  // namespace adept::vision::detail
