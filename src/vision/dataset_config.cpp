// Dataset YAML / dataset folder -> DatasetConfig (class names and per-split sources).
#include "adept/vision/dataset_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <yaml-cpp/yaml.h>

#include "adept/errors.h"
#include "vision/coco_json.h"
#include "vision/yolo_labels.h"

namespace adept::vision {

namespace fs = std::filesystem;

namespace {

bool has_extension(const fs::path& p, const char* ext) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e == ext;
}

// Lexically normal, without the trailing separator "a/b/.." leaves ("a/").
fs::path normal(const fs::path& p) {
  fs::path n = p.lexically_normal();
  return !n.has_filename() && n != n.root_path() ? n.parent_path() : n;
}

// The images folder of a bare COCO JSON path (see load_dataset_config).
std::string coco_images_dir(const fs::path& json) {
  std::string name = json.stem().string();
  if (name.rfind("instances_", 0) == 0) name = name.substr(10);
  const fs::path root = json.parent_path().parent_path();
  const fs::path ultralytics_layout = root / "images" / name;
  std::error_code ec;
  return (fs::is_directory(ultralytics_layout, ec) ? ultralytics_layout : root / name).string();
}

SplitSource make_source(const fs::path& p) {
  SplitSource s;
  s.path = normal(p).string();
  if (has_extension(p, ".json")) {
    s.kind = SplitSource::Kind::CocoJson;
    s.images_dir = coco_images_dir(p);
  } else if (has_extension(p, ".txt")) {
    s.kind = SplitSource::Kind::ImageList;
  } else if (detail::is_image_file(s.path)) {
    s.kind = SplitSource::Kind::ImageFile;
  }
  return s;
}

fs::path resolve(const fs::path& base, const std::string& p) {
  fs::path q(p);
  return normal(q.is_absolute() ? q : base / q);
}

// One YAML split value: a path, a list of paths, or a COCO map {annotations, images}.
std::vector<SplitSource> parse_split(const YAML::Node& node, const fs::path& root, const std::string& file,
                                     const std::string& key) {
  std::vector<SplitSource> out;
  auto bad = [&](const std::string& why) {
    return ValueError(fmt::format("dataset YAML '{}': key '{}': {}", file, key, why));
  };
  if (node.IsScalar()) {
    out.push_back(make_source(resolve(root, node.as<std::string>())));
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar()) throw bad("list entries must be paths");
      out.push_back(make_source(resolve(root, item.as<std::string>())));
    }
  } else if (node.IsMap()) {
    if (!node["annotations"] || !node["annotations"].IsScalar()) throw bad("a map needs an 'annotations' path");
    SplitSource s = make_source(resolve(root, node["annotations"].as<std::string>()));
    if (s.kind != SplitSource::Kind::CocoJson) throw bad("'annotations' must be a COCO .json file");
    if (node["images"]) s.images_dir = resolve(root, node["images"].as<std::string>()).string();
    out.push_back(std::move(s));
  } else {
    throw bad("expected a path, a list of paths or {annotations, images}");
  }
  if (out.empty()) throw bad("empty list");
  return out;
}

std::vector<std::string> parse_names(const YAML::Node& node, const std::string& file) {
  std::vector<std::string> names;
  auto bad = [&](const std::string& why) {
    return ValueError(fmt::format("dataset YAML '{}': key 'names': {}", file, why));
  };
  if (node.IsSequence()) {
    for (const auto& n : node) {
      if (!n.IsScalar()) throw bad("entries must be strings");
      names.push_back(n.as<std::string>());
    }
  } else if (node.IsMap()) {
    std::map<int64_t, std::string> by_id;
    for (const auto& kv : node) {
      int64_t id = 0;
      try {
        id = kv.first.as<int64_t>();
      } catch (const YAML::Exception&) {
        throw bad(fmt::format("class id '{}' is not an integer", kv.first.as<std::string>()));
      }
      if (!kv.second.IsScalar()) throw bad(fmt::format("name of class {} is not a string", id));
      if (!by_id.emplace(id, kv.second.as<std::string>()).second) throw bad(fmt::format("class id {} repeated", id));
    }
    for (const auto& [id, name] : by_id) {
      if (id != static_cast<int64_t>(names.size()))
        throw bad(fmt::format("class ids must be 0 .. {} without gaps; class {} is missing", by_id.size() - 1,
                              names.size()));
      names.push_back(name);
    }
  } else {
    throw bad("expected a list or a {id: name} map");
  }
  return names;
}

DatasetConfig load_yaml(const fs::path& yaml_file) {
  const std::string file = yaml_file.string();
  std::error_code ec;
  ADEPT_CHECK(fs::is_regular_file(yaml_file, ec), IOError, "dataset YAML '{}': no such file", file);
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw IOError(fmt::format("dataset YAML '{}': cannot be read", file));
  } catch (const YAML::Exception& e) {
    throw ValueError(fmt::format("dataset YAML '{}': malformed YAML: {}", file, e.what()));
  }
  ADEPT_CHECK(doc.IsMap(), ValueError, "dataset YAML '{}': expected a mapping of keys (path, train, val, names)",
              file);

  DatasetConfig cfg;
  cfg.source = normal(fs::absolute(yaml_file)).string();
  const fs::path folder = fs::path(cfg.source).parent_path();
  fs::path root = folder;
  if (doc["path"] && !doc["path"].IsNull()) {
    ADEPT_CHECK(doc["path"].IsScalar(), ValueError, "dataset YAML '{}': key 'path' must be a path", file);
    root = resolve(folder, doc["path"].as<std::string>());
  }
  cfg.root = root.string();
  for (const char* key : {"train", "val"})
    ADEPT_CHECK(doc[key] && !doc[key].IsNull(), ValueError, "dataset YAML '{}': missing key '{}'", file, key);
  for (const char* key : {"train", "val", "test"})
    if (doc[key] && !doc[key].IsNull()) cfg.splits[key] = parse_split(doc[key], root, file, key);

  if (doc["names"] && !doc["names"].IsNull()) cfg.names = parse_names(doc["names"], file);
  if (doc["nc"] && !doc["nc"].IsNull()) {
    int64_t nc = 0;
    try {
      nc = doc["nc"].as<int64_t>();
    } catch (const YAML::Exception&) {
      throw ValueError(fmt::format("dataset YAML '{}': key 'nc' must be an integer", file));
    }
    ADEPT_CHECK(nc > 0, ValueError, "dataset YAML '{}': key 'nc' must be positive, got {}", file, nc);
    if (cfg.names.empty())
      for (int64_t k = 0; k < nc; ++k) cfg.names.push_back(fmt::format("class{}", k));
    ADEPT_CHECK(cfg.nc() == nc, ValueError, "dataset YAML '{}': key 'nc' is {} but 'names' has {} entries", file,
                nc, cfg.nc());
  }
  if (cfg.names.empty()) {
    for (const auto& [split, sources] : cfg.splits)
      for (const auto& s : sources)
        if (s.kind == SplitSource::Kind::CocoJson && cfg.names.empty()) cfg.names = detail::read_coco_category_names(s.path);
    ADEPT_CHECK(!cfg.names.empty(), ValueError, "dataset YAML '{}': missing key 'names' (or 'nc')", file);
  }
  return cfg;
}

// A dataset folder without data.yaml: images/ (+ labels/) and classes.txt.
DatasetConfig load_folder(const fs::path& dir) {
  DatasetConfig cfg;
  cfg.source = cfg.root = normal(fs::absolute(dir)).string();
  const fs::path images = fs::path(cfg.root) / "images";
  std::error_code ec;
  ADEPT_CHECK(fs::is_directory(images, ec), IOError,
              "dataset folder '{}': has neither data.yaml nor an images/ folder", cfg.root);
  const fs::path classes = fs::path(cfg.root) / "classes.txt";
  std::ifstream in(classes);
  ADEPT_CHECK(in.good(), IOError, "dataset folder '{}': no classes.txt (class names, one a line)", cfg.root);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    lines.push_back(line);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (size_t k = 0; k < lines.size(); ++k)
    ADEPT_CHECK(!lines[k].empty(), ValueError, "dataset folder '{}': classes.txt line {} is empty", cfg.root, k + 1);
  ADEPT_CHECK(!lines.empty(), ValueError, "dataset folder '{}': classes.txt lists no class", cfg.root);
  cfg.names = std::move(lines);

  std::set<std::string> subdirs;
  for (const auto& e : fs::directory_iterator(images))
    if (e.is_directory()) subdirs.insert(e.path().filename().string());
  for (const char* split : {"train", "val", "test"}) {
    auto it = std::find_if(subdirs.begin(), subdirs.end(), [&](const std::string& d) { return d.rfind(split, 0) == 0; });
    if (it != subdirs.end()) cfg.splits[split] = {make_source(images / *it)};
  }
  if (!cfg.splits.count("train")) cfg.splits["train"] = {make_source(images)};
  if (!cfg.splits.count("val")) cfg.splits["val"] = cfg.splits["train"];
  return cfg;
}

}  // namespace

const std::vector<SplitSource>& DatasetConfig::split(const std::string& name) const {
  auto it = splits.find(name);
  ADEPT_CHECK(it != splits.end(), ValueError, "dataset '{}': no split '{}' (key '{}' missing)", source, name, name);
  return it->second;
}

DatasetConfig load_dataset_config(const std::string& path) {
  std::error_code ec;
  ADEPT_CHECK(fs::exists(path, ec), IOError,
              "dataset '{}' does not exist (expected a dataset YAML or a folder with images/, labels/ and classes.txt)",
              path);
  if (!fs::is_directory(path, ec)) return load_yaml(path);
  const fs::path yaml = fs::path(path) / "data.yaml";
  return fs::is_regular_file(yaml, ec) ? load_yaml(yaml) : load_folder(path);
}

}  // namespace adept::vision
