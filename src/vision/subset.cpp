// Balanced subsets: histogram, greedy selection with caps and minimums, YOLO-format writer.
#include "adept/vision/subset.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "adept/errors.h"

namespace adept::vision {

namespace fs = std::filesystem;

ClassHistogram class_histogram(const std::vector<ImageLabels>& labels, int64_t nc) {
  std::vector<int64_t> all(labels.size());
  std::iota(all.begin(), all.end(), 0);
  return class_histogram(labels, nc, all);
}

ClassHistogram class_histogram(const std::vector<ImageLabels>& labels, int64_t nc, const std::vector<int64_t>& indices) {
  ClassHistogram h;
  h.instances.assign(static_cast<size_t>(nc), 0);
  h.images.assign(static_cast<size_t>(nc), 0);
  for (int64_t i : indices) {
    ADEPT_CHECK(i >= 0 && i < static_cast<int64_t>(labels.size()), IndexError,
                "subset: image index {} out of range [0, {})", i, labels.size());
    const ImageLabels& l = labels[static_cast<size_t>(i)];
    std::set<int64_t> present;
    for (const BoxLabel& b : l.boxes) {
      ADEPT_CHECK(b.cls >= 0 && b.cls < nc, IndexError, "subset: '{}' has class {} outside [0, {})", l.im_file,
                  b.cls, nc);
      ++h.instances[static_cast<size_t>(b.cls)];
      present.insert(b.cls);
    }
    for (int64_t k : present) ++h.images[static_cast<size_t>(k)];
    ++h.total_images;
    h.backgrounds += l.boxes.empty();
  }
  return h;
}

SubsetSelection select_balanced_subset(const std::vector<ImageLabels>& labels, int64_t nc, const SubsetOptions& opt) {
  ADEPT_CHECK(opt.min_per_class >= 0 && opt.max_per_class >= -1, ValueError,
              "select_balanced_subset: min_per_class ({}) must be >= 0 and max_per_class ({}) >= 0 or -1 (no cap)",
              opt.min_per_class, opt.max_per_class);
  ADEPT_CHECK(opt.max_per_class < 0 || opt.min_per_class <= opt.max_per_class, ValueError,
              "select_balanced_subset: min_per_class ({}) exceeds max_per_class ({})", opt.min_per_class,
              opt.max_per_class);
  SubsetSelection sel;
  sel.before = class_histogram(labels, nc);

  // Seeded Fisher-Yates shuffle (written out so the order does not depend on the standard library).
  std::vector<int64_t> order(labels.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(opt.seed);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);

  auto rarity = [&](int64_t i) {
    int64_t r = std::numeric_limits<int64_t>::max();
    for (const BoxLabel& b : labels[static_cast<size_t>(i)].boxes) r = std::min(r, sel.before.instances[b.cls]);
    return r;
  };
  std::vector<int64_t> labelled, backgrounds;
  for (int64_t i : order) (labels[static_cast<size_t>(i)].boxes.empty() ? backgrounds : labelled).push_back(i);
  std::vector<int64_t> key(labels.size());
  for (int64_t i : labelled) key[static_cast<size_t>(i)] = rarity(i);
  // Rarest class first; among equals, images with fewer boxes (they spend less of other classes' caps).
  std::stable_sort(labelled.begin(), labelled.end(), [&](int64_t a, int64_t b) {
    return std::pair(key[a], labels[a].boxes.size()) < std::pair(key[b], labels[b].boxes.size());
  });

  std::vector<int64_t> count(static_cast<size_t>(nc), 0), in_image(static_cast<size_t>(nc), 0);
  for (int64_t i : labelled) {
    const auto& boxes = labels[static_cast<size_t>(i)].boxes;
    for (const BoxLabel& b : boxes) ++in_image[b.cls];
    bool helps_min = false, fits = true;
    for (const BoxLabel& b : boxes) {
      helps_min |= count[b.cls] < opt.min_per_class;
      fits &= opt.max_per_class < 0 || count[b.cls] + in_image[b.cls] <= opt.max_per_class;
    }
    if (helps_min || fits) {
      sel.indices.push_back(i);
      for (const BoxLabel& b : boxes) count[b.cls] += in_image[b.cls], in_image[b.cls] = 0;
    }
    for (const BoxLabel& b : boxes) in_image[b.cls] = 0;
  }
  const auto taken = static_cast<int64_t>(sel.indices.size());
  const auto n_labelled = static_cast<int64_t>(labelled.size()), n_bg = static_cast<int64_t>(backgrounds.size());
  const int64_t bg_take = n_labelled == 0 ? n_bg : (taken * n_bg * 2 + n_labelled) / (2 * n_labelled);
  sel.indices.insert(sel.indices.end(), backgrounds.begin(), backgrounds.begin() + std::min(bg_take, n_bg));
  std::sort(sel.indices.begin(), sel.indices.end());

  sel.after = class_histogram(labels, nc, sel.indices);
  for (int64_t k = 0; k < nc; ++k) {
    if (sel.after.instances[k] < opt.min_per_class) sel.below_min.push_back(k);
    if (opt.max_per_class >= 0 && sel.after.instances[k] > opt.max_per_class) sel.over_cap.push_back(k);
  }
  return sel;
}

namespace {

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  ADEPT_CHECK(out.good(), IOError, "subset: cannot write '{}'", file.string());
}

bool inside(const fs::path& file, const fs::path& dir) {
  const std::string f = fs::weakly_canonical(file).string(), d = fs::weakly_canonical(dir).string() + "/";
  return f.rfind(d, 0) == 0;
}

}  // namespace

void write_yolo_subset(const std::vector<ImageLabels>& labels, const std::vector<int64_t>& indices,
                       const std::vector<std::string>& names, const std::string& out_dir, const std::string& split,
                       bool copy_images, bool overwrite) {
  const fs::path out = fs::absolute(out_dir);
  const fs::path images = out / "images" / split, label_dir = out / "labels" / split;
  for (int64_t i : indices) {
    ADEPT_CHECK(i >= 0 && i < static_cast<int64_t>(labels.size()), IndexError,
                "subset: image index {} out of range [0, {})", i, labels.size());
    ADEPT_CHECK(!inside(labels[static_cast<size_t>(i)].im_file, out), ValueError,
                "subset: output folder '{}' holds source image '{}'; choose another folder", out.string(),
                labels[static_cast<size_t>(i)].im_file);
  }
  std::error_code ec;
  for (const fs::path& d : {images, label_dir}) {
    if (!fs::exists(d, ec)) continue;
    ADEPT_CHECK(overwrite, ValueError, "subset: '{}' already exists (pass overwrite to replace it)",
                d.string());
    fs::remove_all(d);
  }
  fs::remove(fs::path(label_dir.string() + ".adept.cache"), ec);
  try {
    fs::create_directories(images);
    fs::create_directories(label_dir);
  } catch (const fs::filesystem_error& e) {
    throw IOError(fmt::format("subset: cannot create '{}': {}", out.string(), e.what()));
  }

  std::set<std::string> used;
  for (int64_t i : indices) {
    const ImageLabels& l = labels[static_cast<size_t>(i)];
    std::string name = fs::path(l.im_file).filename().string();
    for (int k = 1; used.count(name); ++k) name = fmt::format("{}_{}", k, fs::path(l.im_file).filename().string());
    used.insert(name);
    const fs::path dst = images / name;
    ec.clear();
    if (!copy_images) fs::create_hard_link(l.im_file, dst, ec);
    if (copy_images || ec) {
      ec.clear();
      fs::copy_file(l.im_file, dst, fs::copy_options::overwrite_existing, ec);
      ADEPT_CHECK(!ec, IOError, "subset: cannot copy '{}' to '{}': {}", l.im_file, dst.string(), ec.message());
    }
    if (l.boxes.empty()) continue;
    std::string text;
    for (const BoxLabel& b : l.boxes) text += fmt::format("{} {:.6f} {:.6f} {:.6f} {:.6f}\n", b.cls, b.cx, b.cy, b.w, b.h);
    write_text(label_dir / fs::path(name).replace_extension(".txt"), text);
  }

  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "train" << YAML::Value << fmt::format("images/{}", split);
  y << YAML::Key << "val" << YAML::Value << fmt::format("images/{}", split);
  y << YAML::Key << "nc" << YAML::Value << names.size();
  y << YAML::Key << "names" << YAML::Value << YAML::BeginMap;
  for (size_t k = 0; k < names.size(); ++k) y << YAML::Key << k << YAML::Value << names[k];
  y << YAML::EndMap << YAML::EndMap;
  write_text(out / "data.yaml", std::string("# Written by `adept subset`.\n") + y.c_str() + "\n");
}

std::string format_histogram(const std::vector<std::string>& names, const ClassHistogram& before,
                             const ClassHistogram& after) {
  size_t width = 5;
  for (const auto& n : names) width = std::max(width, n.size());
  std::string s = fmt::format("{:<{}}  {:^19}  {:^19}\n", "", width, "before", "after");
  s += fmt::format("{:<{}}  {:>10} {:>8}  {:>10} {:>8}\n", "class", width, "instances", "images", "instances", "images");
  int64_t bi = 0, ai = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    s += fmt::format("{:<{}}  {:>10} {:>8}  {:>10} {:>8}\n", names[k], width, before.instances[k], before.images[k],
                     after.instances[k], after.images[k]);
    bi += before.instances[k];
    ai += after.instances[k];
  }
  s += fmt::format("{:<{}}  {:>10} {:>8}  {:>10} {:>8}\n", "all", width, bi, before.total_images, ai,
                   after.total_images);
  s += fmt::format("{:<{}}  {:>10} {:>8}  {:>10} {:>8}\n", "background", width, "", before.backgrounds, "",
                   after.backgrounds);
  return s;
}

}  // namespace adept::vision
